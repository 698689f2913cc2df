package io.thinvol.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;

/** When to create ReclaimSpaceJobs; the names, defaults and limits are CSI-Addons'. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class ReclaimSpaceCronJobSpec {

  @JsonPropertyDescription(
      "When jobs run: a cron expression of 5 fields or @hourly, @daily, @weekly, @monthly, @yearly, in UTC unless prefixed by CRON_TZ=<IANA zone>; or @every <duration> (Go syntax such as 1h30m, at least 1m; runs on multiples of it since 1970-01-01 UTC). Each run is shifted by a stable offset from the object's UID so schedules do not fire together.")
  @Required
  @Pattern(ReclaimSpaceSpec.SCHEDULE_PATTERN)
  private String schedule;

  @JsonPropertyDescription(
      "A run that could not start within this many seconds of its time is skipped.")
  @Min(0)
  private Long startingDeadlineSeconds;

  @JsonPropertyDescription(
      "Forbid skips a run while the previous job still runs; Replace deletes it and starts anew.")
  @Default("Forbid")
  private ConcurrencyPolicy concurrencyPolicy;

  @JsonPropertyDescription("Stops future runs; a running job goes on.")
  @Default("false")
  private Boolean suspend;

  @JsonPropertyDescription("The job created at each run.")
  @Required
  private ReclaimSpaceJobTemplate jobTemplate;

  @JsonPropertyDescription("Succeeded jobs kept.")
  @Default("3")
  @Min(0)
  @Max(60)
  private Integer successfulJobsHistoryLimit;

  @JsonPropertyDescription("Failed jobs kept.")
  @Default("1")
  @Min(0)
  @Max(60)
  private Integer failedJobsHistoryLimit;

  public String getSchedule() {
    return schedule;
  }

  public void setSchedule(String schedule) {
    this.schedule = schedule;
  }

  public Long getStartingDeadlineSeconds() {
    return startingDeadlineSeconds;
  }

  public void setStartingDeadlineSeconds(Long startingDeadlineSeconds) {
    this.startingDeadlineSeconds = startingDeadlineSeconds;
  }

  public ConcurrencyPolicy getConcurrencyPolicy() {
    return concurrencyPolicy;
  }

  public void setConcurrencyPolicy(ConcurrencyPolicy concurrencyPolicy) {
    this.concurrencyPolicy = concurrencyPolicy;
  }

  public Boolean getSuspend() {
    return suspend;
  }

  public void setSuspend(Boolean suspend) {
    this.suspend = suspend;
  }

  public ReclaimSpaceJobTemplate getJobTemplate() {
    return jobTemplate;
  }

  public void setJobTemplate(ReclaimSpaceJobTemplate jobTemplate) {
    this.jobTemplate = jobTemplate;
  }

  public Integer getSuccessfulJobsHistoryLimit() {
    return successfulJobsHistoryLimit;
  }

  public void setSuccessfulJobsHistoryLimit(Integer successfulJobsHistoryLimit) {
    this.successfulJobsHistoryLimit = successfulJobsHistoryLimit;
  }

  public Integer getFailedJobsHistoryLimit() {
    return failedJobsHistoryLimit;
  }

  public void setFailedJobsHistoryLimit(Integer failedJobsHistoryLimit) {
    this.failedJobsHistoryLimit = failedJobsHistoryLimit;
  }
}
