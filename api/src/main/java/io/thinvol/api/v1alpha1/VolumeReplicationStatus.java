package io.thinvol.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.kubernetes.api.model.Condition;
import java.util.List;

/**
 * How a VolumeReplication goes; {@code kubectl describe volumereplication <name>} shows it. The
 * fields of CSI-Addons' status and thinvol's: where the copies are and what a failover lost.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class VolumeReplicationStatus extends ConditionedStatus {

  @JsonPropertyDescription(
      "Primary: the claim's copy is the writable one, replicated. Secondary: the switchover asked by replicationState: secondary is done. Unknown: not validated yet.")
  private ReplicaState state;

  @JsonPropertyDescription(
      "What the replication is doing or waiting for, or what is wrong, in plain words.")
  private String message;

  @JsonPropertyDescription("The node of the claim's volume: the writable copy.")
  private String primaryNode;

  @JsonPropertyDescription("The node chosen to hold the replica.")
  private String standbyNode;

  @JsonPropertyDescription(
      "The point in time the standby holds: everything written to the claim before it is replicated.")
  private String lastSyncTime;

  @JsonPropertyDescription("How long the last sync took, e.g. 1.2s.")
  private String lastSyncDuration;

  @JsonPropertyDescription("The bytes the last sync sent between the nodes.")
  private Long lastSyncBytes;

  @JsonPropertyDescription(
      "The number of the last sync begun: it names the sync's snapshot on the primary and the"
          + " replica made of it.")
  private Long lastSyncAttempt;

  @JsonPropertyDescription(
      "When the last sync began; a sync after lastCompletionTime is under way.")
  private String lastStartTime;

  @JsonPropertyDescription("When the last sync ended.")
  private String lastCompletionTime;

  @JsonPropertyDescription(
      "The standby's replica: a complete image of the sync point lastSyncTime.")
  private ReplicaPoint replica;

  @JsonPropertyDescription(
      "The last failover: when, between which nodes, and from when on writes were lost.")
  private FailoverRecord lastFailover;

  @JsonPropertyDescription(
      "A failed primary's copy kept on its node (autoResync: false), demoted, never mounted.")
  private StaleCopy staleCopy;

  @JsonPropertyDescription("The VolumeMove of a switchover or failover under way.")
  private String volumeMove;

  @JsonPropertyDescription("The generation whose replicationState: resync was carried out.")
  private Long resyncedGeneration;

  public ReplicaState getState() {
    return state;
  }

  public void setState(ReplicaState state) {
    this.state = state;
  }

  public String getMessage() {
    return message;
  }

  public void setMessage(String message) {
    this.message = message;
  }

  public String getPrimaryNode() {
    return primaryNode;
  }

  public void setPrimaryNode(String primaryNode) {
    this.primaryNode = primaryNode;
  }

  public String getStandbyNode() {
    return standbyNode;
  }

  public void setStandbyNode(String standbyNode) {
    this.standbyNode = standbyNode;
  }

  public String getLastSyncTime() {
    return lastSyncTime;
  }

  public void setLastSyncTime(String lastSyncTime) {
    this.lastSyncTime = lastSyncTime;
  }

  public String getLastSyncDuration() {
    return lastSyncDuration;
  }

  public void setLastSyncDuration(String lastSyncDuration) {
    this.lastSyncDuration = lastSyncDuration;
  }

  public Long getLastSyncBytes() {
    return lastSyncBytes;
  }

  public void setLastSyncBytes(Long lastSyncBytes) {
    this.lastSyncBytes = lastSyncBytes;
  }

  public Long getLastSyncAttempt() {
    return lastSyncAttempt;
  }

  public void setLastSyncAttempt(Long lastSyncAttempt) {
    this.lastSyncAttempt = lastSyncAttempt;
  }

  public String getLastStartTime() {
    return lastStartTime;
  }

  public void setLastStartTime(String lastStartTime) {
    this.lastStartTime = lastStartTime;
  }

  public String getLastCompletionTime() {
    return lastCompletionTime;
  }

  public void setLastCompletionTime(String lastCompletionTime) {
    this.lastCompletionTime = lastCompletionTime;
  }

  public ReplicaPoint getReplica() {
    return replica;
  }

  public void setReplica(ReplicaPoint replica) {
    this.replica = replica;
  }

  public FailoverRecord getLastFailover() {
    return lastFailover;
  }

  public void setLastFailover(FailoverRecord lastFailover) {
    this.lastFailover = lastFailover;
  }

  public StaleCopy getStaleCopy() {
    return staleCopy;
  }

  public void setStaleCopy(StaleCopy staleCopy) {
    this.staleCopy = staleCopy;
  }

  public String getVolumeMove() {
    return volumeMove;
  }

  public void setVolumeMove(String volumeMove) {
    this.volumeMove = volumeMove;
  }

  public Long getResyncedGeneration() {
    return resyncedGeneration;
  }

  public void setResyncedGeneration(Long resyncedGeneration) {
    this.resyncedGeneration = resyncedGeneration;
  }

  @JsonPropertyDescription(
      "Validated, Replicating, Resyncing, Completed, Degraded; the reason and message say why.")
  @Override
  public List<Condition> getConditions() {
    return super.getConditions();
  }
}
