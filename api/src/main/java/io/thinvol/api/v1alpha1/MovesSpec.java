package io.thinvol.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;

/** Limits on moving this backend's volumes between nodes (VolumeMoves, node evacuations). */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class MovesSpec {

  @JsonPropertyDescription(
      "Moves copying from one node at once; further moves from that node wait in Pending.")
  @Default("2")
  @Min(1)
  @Max(16)
  private Integer maxConcurrentPerNode;

  public Integer getMaxConcurrentPerNode() {
    return maxConcurrentPerNode;
  }

  public void setMaxConcurrentPerNode(Integer maxConcurrentPerNode) {
    this.maxConcurrentPerNode = maxConcurrentPerNode;
  }
}
