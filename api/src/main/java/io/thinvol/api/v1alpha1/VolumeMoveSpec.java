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
