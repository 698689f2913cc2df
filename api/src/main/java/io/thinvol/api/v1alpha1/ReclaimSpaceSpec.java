package io.thinvol.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;

/** Defaults for reclaiming the space of a backend's volumes. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class ReclaimSpaceSpec {

  /**
   * What CSI-Addons' schedule parser (robfig/cron) accepts: 5 cron fields or an @-macro, optionally
   * after CRON_TZ=zone or TZ=zone, or @every with a Go duration.
   */
  public static final String SCHEDULE_PATTERN =
      "^((CRON_TZ|TZ)=\\S+\\s+)?(@(yearly|annually|monthly|weekly|daily|midnight|hourly)"
          + "|@every\\s+([0-9]+(\\.[0-9]+)?(ns|us|ms|s|m|h))+|(\\S+\\s+){4}\\S+)$";

  @JsonPropertyDescription(
      "When every volume of this backend is reclaimed: ON BY DEFAULT (@weekly), unlike"
          + " CSI-Addons; opt out with the annotation reclaimspace.thinvol.io/enable=false on a"
          + " PVC, its Namespace or its StorageClass. A cron expression (5 fields, or @daily,"
          + " @weekly, ..., optionally after CRON_TZ=<zone>) or @every <duration>; annotations"
          + " on a PVC, its Namespace or StorageClass override it.")
  @Default("\"@weekly\"")
  @Pattern(ReclaimSpaceSpec.SCHEDULE_PATTERN)
  private String schedule;

  @JsonPropertyDescription("Reclaims running at once on one node, across all jobs.")
  @Default("1")
  @Min(1)
  @Max(32)
  private Integer maxConcurrentPerNode;

  @JsonPropertyDescription("How long one reclaim call may take, e.g. 10m or 1h.")
  @Default("10m")
  @Pattern("^[0-9]+(s|m|h)$")
  private String timeout;

  public String getSchedule() {
    return schedule;
  }

  public void setSchedule(String schedule) {
    this.schedule = schedule;
  }

  public Integer getMaxConcurrentPerNode() {
    return maxConcurrentPerNode;
  }

  public void setMaxConcurrentPerNode(Integer maxConcurrentPerNode) {
    this.maxConcurrentPerNode = maxConcurrentPerNode;
  }

  public String getTimeout() {
    return timeout;
  }

  public void setTimeout(String timeout) {
    this.timeout = timeout;
  }
}
