package io.thinvol.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;

/** Limits on moving this backend's volumes between nodes (VolumeMoves, node evacuations). */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class MovesSpec {

  public static final int DEFAULT_NODE_NOT_READY_SECONDS = 300;
  public static final int MIN_NODE_NOT_READY_SECONDS = 30;
  public static final int DEFAULT_CUT_OVER_DEADLINE_SECONDS = 600;
  public static final int MIN_CUT_OVER_DEADLINE_SECONDS = 60;

  @JsonPropertyDescription(
      "Moves copying from one node at once; further moves from that node wait in Pending.")
  @Default("2")
  @Min(1)
  @Max(16)
  private Integer maxConcurrentPerNode;

  @JsonPropertyDescription(
      "Seconds a move that has not deleted its claim yet (Pending, PreCopying,"
          + " WaitingForCutOver) waits for its source or target node to be Ready again; then it"
          + " fails and removes what it made, the claim untouched.")
  @Default("300")
  @Min(MIN_NODE_NOT_READY_SECONDS)
  @Max(86400)
  private Integer nodeNotReadySeconds;

  @JsonPropertyDescription(
      "Seconds after its start that a cut-over may keep failing for reasons that may pass (a"
          + " node NotReady, a driver not answering); then it rolls back: the claim is bound to"
          + " its old volume again.")
  @Default("600")
  @Min(MIN_CUT_OVER_DEADLINE_SECONDS)
  @Max(3600)
  private Integer cutOverDeadlineSeconds;

  public Integer getMaxConcurrentPerNode() {
    return maxConcurrentPerNode;
  }

  public void setMaxConcurrentPerNode(Integer maxConcurrentPerNode) {
    this.maxConcurrentPerNode = maxConcurrentPerNode;
  }

  public Integer getNodeNotReadySeconds() {
    return nodeNotReadySeconds;
  }

  public void setNodeNotReadySeconds(Integer nodeNotReadySeconds) {
    this.nodeNotReadySeconds = nodeNotReadySeconds;
  }

  public Integer getCutOverDeadlineSeconds() {
    return cutOverDeadlineSeconds;
  }

  public void setCutOverDeadlineSeconds(Integer cutOverDeadlineSeconds) {
    this.cutOverDeadlineSeconds = cutOverDeadlineSeconds;
  }
}
