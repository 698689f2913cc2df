package io.thinvol.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.List;

/** How a VolumeMove goes; {@code kubectl describe volumemove <name>} shows it. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class VolumeMoveStatus extends ConditionedStatus {

  @JsonPropertyDescription(
      "Pending, PreCopying, WaitingForCutOver, CuttingOver, Succeeded or Failed.")
  private MovePhase phase;

  @JsonPropertyDescription(
      "What the move is doing or waiting for, or why it failed, in plain words.")
  private String message;

  @JsonPropertyDescription("The node the data moves from.")
  private String sourceNode;

  @JsonPropertyDescription("The node the data moves to.")
  private String targetNode;

  @JsonPropertyDescription("The claim's PersistentVolume before the move.")
  private String sourceVolume;

  @JsonPropertyDescription("The claim's PersistentVolume after the move.")
  private String targetVolume;

  @JsonPropertyDescription(
      "The new volume's handle on the target node, recorded as soon as the copy made it (so that"
          + " a rollback can delete it).")
  private String targetVolumeHandle;

  @JsonPropertyDescription(
      "Bytes the source volume holds on its node's disk (allocated, not its size).")
  private Quantity bytesTotal;

  @JsonPropertyDescription(
      "Bytes copied to the target node so far: the pre-copy, then the changed blocks.")
  private Quantity bytesCopied;

  @JsonPropertyDescription("Bytes of the blocks changed since the pre-copy, sent at the cut-over.")
  private Quantity deltaBytes;

  @JsonPropertyDescription("The pre-copy's rate, e.g. 212.4 MiB/s.")
  private String copyRate;

  @JsonPropertyDescription(
      "From the cut-over's start until the claim was bound to the new volume, e.g. 1.8s.")
  private String cutOverDuration;

  @JsonPropertyDescription("When the pre-copy began.")
  private String startTime;

  @JsonPropertyDescription("When the pre-copy ended.")
  private String preCopyCompletionTime;

  @JsonPropertyDescription("When the claim was found unused and the cut-over began.")
  private String cutOverStartTime;

  @JsonPropertyDescription("When the move ended.")
  private String completionTime;

  @JsonPropertyDescription(
      "The old volume's reclaim policy, held at Retain during the cut-over and restored after it.")
  private String originalReclaimPolicy;

  @JsonPropertyDescription(
      "A replica's move (spec.volumeReplication): the replica on the target node that is its"
          + " pre-copy.")
  private String replicaVolumeHandle;

  @JsonPropertyDescription(
      "A replica's move: FinalDelta (a switchover: the blocks changed since the last sync copied"
          + " onto the replica) or Promoted (a failover: the claim's node declared dead and fenced,"
          + " the replica promoted as it is); decided when the cut-over began.")
  private String replicaCutOver;

  @JsonPropertyDescription(
      "PreCopied, CutOver, Succeeded or Failed, and NodeNotReady while the source or target node"
          + " is not Ready or is lost; the message says why.")
  @Override
  public List<Condition> getConditions() {
    return super.getConditions();
  }

  public MovePhase getPhase() {
    return phase;
  }

  public void setPhase(MovePhase phase) {
    this.phase = phase;
  }

  public String getMessage() {
    return message;
  }

  public void setMessage(String message) {
    this.message = message;
  }

  public String getSourceNode() {
    return sourceNode;
  }

  public void setSourceNode(String sourceNode) {
    this.sourceNode = sourceNode;
  }

  public String getTargetNode() {
    return targetNode;
  }

  public void setTargetNode(String targetNode) {
    this.targetNode = targetNode;
  }

  public String getSourceVolume() {
    return sourceVolume;
  }

  public void setSourceVolume(String sourceVolume) {
    this.sourceVolume = sourceVolume;
  }

  public String getTargetVolume() {
    return targetVolume;
  }

  public void setTargetVolume(String targetVolume) {
    this.targetVolume = targetVolume;
  }

  public String getTargetVolumeHandle() {
    return targetVolumeHandle;
  }

  public void setTargetVolumeHandle(String targetVolumeHandle) {
    this.targetVolumeHandle = targetVolumeHandle;
  }

  public Quantity getBytesTotal() {
    return bytesTotal;
  }

  public void setBytesTotal(Quantity bytesTotal) {
    this.bytesTotal = bytesTotal;
  }

  public Quantity getBytesCopied() {
    return bytesCopied;
  }

  public void setBytesCopied(Quantity bytesCopied) {
    this.bytesCopied = bytesCopied;
  }

  public Quantity getDeltaBytes() {
    return deltaBytes;
  }

  public void setDeltaBytes(Quantity deltaBytes) {
    this.deltaBytes = deltaBytes;
  }

  public String getCopyRate() {
    return copyRate;
  }

  public void setCopyRate(String copyRate) {
    this.copyRate = copyRate;
  }

  public String getReplicaVolumeHandle() {
    return replicaVolumeHandle;
  }

  public void setReplicaVolumeHandle(String replicaVolumeHandle) {
    this.replicaVolumeHandle = replicaVolumeHandle;
  }

  public String getReplicaCutOver() {
    return replicaCutOver;
  }

  public void setReplicaCutOver(String replicaCutOver) {
    this.replicaCutOver = replicaCutOver;
  }

  public String getCutOverDuration() {
    return cutOverDuration;
  }

  public void setCutOverDuration(String cutOverDuration) {
    this.cutOverDuration = cutOverDuration;
  }

  public String getStartTime() {
    return startTime;
  }

  public void setStartTime(String startTime) {
    this.startTime = startTime;
  }

  public String getPreCopyCompletionTime() {
    return preCopyCompletionTime;
  }

  public void setPreCopyCompletionTime(String preCopyCompletionTime) {
    this.preCopyCompletionTime = preCopyCompletionTime;
  }

  public String getCutOverStartTime() {
    return cutOverStartTime;
  }

  public void setCutOverStartTime(String cutOverStartTime) {
    this.cutOverStartTime = cutOverStartTime;
  }

  public String getCompletionTime() {
    return completionTime;
  }

  public void setCompletionTime(String completionTime) {
    this.completionTime = completionTime;
  }

  public String getOriginalReclaimPolicy() {
    return originalReclaimPolicy;
  }

  public void setOriginalReclaimPolicy(String originalReclaimPolicy) {
    this.originalReclaimPolicy = originalReclaimPolicy;
  }
}
