package io.thinvol.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/** The standby's replica: a complete image of one past sync point. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class ReplicaPoint {

  @JsonPropertyDescription("The node that holds it.")
  private String node;

  @JsonPropertyDescription("Its volume handle on that node.")
  private String volumeHandle;

  @JsonPropertyDescription("The primary's volume it is a replica of.")
  private String sourceVolumeHandle;

  @JsonPropertyDescription("The primary's sync snapshot it equals.")
  private String snapshotHandle;

  @JsonPropertyDescription("The number of the sync that made it; the next sync is one more.")
  private Long sync;

  @JsonPropertyDescription(
      "Whether both drivers were told (the older snapshot and replica are deleted); the next sync"
          + " waits for it.")
  private Boolean acknowledged;

  public Boolean getAcknowledged() {
    return acknowledged;
  }

  public void setAcknowledged(Boolean acknowledged) {
    this.acknowledged = acknowledged;
  }

  public String getNode() {
    return node;
  }

  public void setNode(String node) {
    this.node = node;
  }

  public String getVolumeHandle() {
    return volumeHandle;
  }

  public void setVolumeHandle(String volumeHandle) {
    this.volumeHandle = volumeHandle;
  }

  public String getSourceVolumeHandle() {
    return sourceVolumeHandle;
  }

  public void setSourceVolumeHandle(String sourceVolumeHandle) {
    this.sourceVolumeHandle = sourceVolumeHandle;
  }

  public String getSnapshotHandle() {
    return snapshotHandle;
  }

  public void setSnapshotHandle(String snapshotHandle) {
    this.snapshotHandle = snapshotHandle;
  }

  public Long getSync() {
    return sync;
  }

  public void setSync(Long sync) {
    this.sync = sync;
  }
}
