package io.thinvol.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/** The node and controller services' answers. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class ReclaimSteps {

  @JsonPropertyDescription("NodeReclaimSpace: a trim where the volume is mounted.")
  private ReclaimStep node;

  @JsonPropertyDescription("ControllerReclaimSpace: an offline reclaim of an unused volume.")
  private ReclaimStep controller;

  public ReclaimStep getNode() {
    return node;
  }

  public void setNode(ReclaimStep node) {
    this.node = node;
  }

  public ReclaimStep getController() {
    return controller;
  }

  public void setController(ReclaimStep controller) {
    this.controller = controller;
  }
}
