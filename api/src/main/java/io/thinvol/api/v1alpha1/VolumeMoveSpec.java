package io.thinvol.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.ValidationRule;

/** Which claim moves where. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
    value = "self.persistentVolumeClaim == oldSelf.persistentVolumeClaim",
    message = "persistentVolumeClaim cannot be changed; delete this move and create another")
@ValidationRule(
    value =
        "!has(oldSelf.targetNode) || (has(self.targetNode) && self.targetNode == oldSelf.targetNode)",
    message = "targetNode cannot be changed once set; delete this move and create another")
@ValidationRule(
    value =
        "has(self.volumeReplication) == has(oldSelf.volumeReplication) &&"
            + " (!has(self.volumeReplication) || self.volumeReplication == oldSelf.volumeReplication)",
    message = "volumeReplication cannot be changed; delete this move and create another")
public class VolumeMoveSpec {

  @JsonPropertyDescription("The claim, in this namespace, whose data moves.")
  @Required
  private String persistentVolumeClaim;

  @JsonPropertyDescription(
      "The node the data moves to; empty lets the operator choose the node with the most free"
          + " capacity among those the claim's StorageBackend serves.")
  private String targetNode;

  @JsonPropertyDescription(
      "Bound deletes the old volume once the claim is bound to the new one; Mounted once a pod"
          + " has mounted the new one.")
  @Default("Bound")
  private KeepSourceUntil keepSourceUntil;

  @JsonPropertyDescription(
      "A VolumeReplication of the claim (set by the operator for a switchover or a failover):"
          + " its standby's replica is the pre-copy, on its standby node. At the cut-over the"
          + " blocks changed since the last sync are copied onto it; if Kubernetes declares the"
          + " claim's node dead and fenced (out-of-service taint, or the Node deleted), the replica"
          + " is promoted as it is.")
  private String volumeReplication;

  public String getVolumeReplication() {
    return volumeReplication;
  }

  public void setVolumeReplication(String volumeReplication) {
    this.volumeReplication = volumeReplication;
  }

  public String getPersistentVolumeClaim() {
    return persistentVolumeClaim;
  }

  public void setPersistentVolumeClaim(String persistentVolumeClaim) {
    this.persistentVolumeClaim = persistentVolumeClaim;
  }

  public String getTargetNode() {
    return targetNode;
  }

  public void setTargetNode(String targetNode) {
    this.targetNode = targetNode;
  }

  public KeepSourceUntil getKeepSourceUntil() {
    return keepSourceUntil;
  }

  public void setKeepSourceUntil(KeepSourceUntil keepSourceUntil) {
    this.keepSourceUntil = keepSourceUntil;
  }
}
