package io.thinvol.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/**
 * A failed primary's copy, kept on its node: it may hold writes the failover lost; it is never
 * mounted.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class StaleCopy {

  @JsonPropertyDescription("The node that holds it.")
  private String node;

  @JsonPropertyDescription("Its PersistentVolume, Released and held at Retain.")
  private String persistentVolume;

  @JsonPropertyDescription("Its volume handle on that node.")
  private String volumeHandle;

  @JsonPropertyDescription(
      "Whether its node's driver has demoted it (refuses to stage it); false while the node is away.")
  private Boolean demoted;

  public String getNode() {
    return node;
  }

  public void setNode(String node) {
    this.node = node;
  }

  public String getPersistentVolume() {
    return persistentVolume;
  }

  public void setPersistentVolume(String persistentVolume) {
    this.persistentVolume = persistentVolume;
  }

  public String getVolumeHandle() {
    return volumeHandle;
  }

  public void setVolumeHandle(String volumeHandle) {
    this.volumeHandle = volumeHandle;
  }

  public Boolean getDemoted() {
    return demoted;
  }

  public void setDemoted(Boolean demoted) {
    this.demoted = demoted;
  }
}
