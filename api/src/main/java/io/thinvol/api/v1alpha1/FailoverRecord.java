package io.thinvol.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/** A failover: the claim's node was declared dead and its standby's copy promoted. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class FailoverRecord {

  @JsonPropertyDescription("When the failover began.")
  private String time;

  @JsonPropertyDescription("The node declared dead (out-of-service taint, or deleted).")
  private String fromNode;

  @JsonPropertyDescription("The standby node the claim runs on since.")
  private String toNode;

  @JsonPropertyDescription(
      "The sync point promoted: what was written to the claim on the old node after this time is lost.")
  private String dataLostAfter;

  @JsonPropertyDescription("The VolumeMove that rebound the claim.")
  private String volumeMove;

  public String getTime() {
    return time;
  }

  public void setTime(String time) {
    this.time = time;
  }

  public String getFromNode() {
    return fromNode;
  }

  public void setFromNode(String fromNode) {
    this.fromNode = fromNode;
  }

  public String getToNode() {
    return toNode;
  }

  public void setToNode(String toNode) {
    this.toNode = toNode;
  }

  public String getDataLostAfter() {
    return dataLostAfter;
  }

  public void setDataLostAfter(String dataLostAfter) {
    this.dataLostAfter = dataLostAfter;
  }

  public String getVolumeMove() {
    return volumeMove;
  }

  public void setVolumeMove(String volumeMove) {
    this.volumeMove = volumeMove;
  }
}
