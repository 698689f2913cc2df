package io.thinvol.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Required;

/** What to reclaim and how hard to try; the names and limits are CSI-Addons'. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class ReclaimSpaceJobSpec {

  @JsonPropertyDescription("The volume whose unused space is given back.")
  @Required
  private ReclaimTarget target;

  @JsonPropertyDescription("Retries after the first attempt fails; 0 means none.")
  @Default("6")
  @Min(0)
  @Max(60)
  private Integer backOffLimit;

  @JsonPropertyDescription(
      "Seconds after the job started after which no further attempt begins; 0 means one attempt.")
  @Default("600")
  @Min(0)
  @Max(1800)
  private Long retryDeadlineSeconds;

  @JsonPropertyDescription(
      "Seconds one reclaim call may take; unset uses the StorageBackend's reclaimSpace.timeout.")
  @Min(60)
  private Long timeout;

  @JsonPropertyDescription(
      "Auto trims where the volume is mounted, or reclaims it offline when no pod uses it;"
          + " NodeOnly and ControllerOnly call only that service.")
  @Default("Auto")
  private ReclaimMode mode;

  public ReclaimTarget getTarget() {
    return target;
  }

  public void setTarget(ReclaimTarget target) {
    this.target = target;
  }

  public Integer getBackOffLimit() {
    return backOffLimit;
  }

  public void setBackOffLimit(Integer backOffLimit) {
    this.backOffLimit = backOffLimit;
  }

  public Long getRetryDeadlineSeconds() {
    return retryDeadlineSeconds;
  }

  public void setRetryDeadlineSeconds(Long retryDeadlineSeconds) {
    this.retryDeadlineSeconds = retryDeadlineSeconds;
  }

  public Long getTimeout() {
    return timeout;
  }

  public void setTimeout(Long timeout) {
    this.timeout = timeout;
  }

  public ReclaimMode getMode() {
    return mode;
  }

  public void setMode(ReclaimMode mode) {
    this.mode = mode;
  }
}
