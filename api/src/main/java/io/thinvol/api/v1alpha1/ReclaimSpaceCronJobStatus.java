package io.thinvol.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ObjectReference;
import java.util.List;

/** The runs of a ReclaimSpaceCronJob. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class ReclaimSpaceCronJobStatus extends ConditionedStatus {

  @JsonPropertyDescription("The job of the current run, while it runs.")
  private ObjectReference active;

  @JsonPropertyDescription("The time of the latest run that created a job.")
  private String lastScheduleTime;

  @JsonPropertyDescription("When the latest job that succeeded completed.")
  private String lastSuccessfulTime;

  @JsonPropertyDescription("When the next run is due, stagger included.")
  private String nextScheduleTime;

  @JsonPropertyDescription(
      "ScheduleValid: False when the schedule cannot be parsed (the message says why).")
  @Override
  public List<Condition> getConditions() {
    return super.getConditions();
  }

  public ObjectReference getActive() {
    return active;
  }

  public void setActive(ObjectReference active) {
    this.active = active;
  }

  public String getLastScheduleTime() {
    return lastScheduleTime;
  }

  public void setLastScheduleTime(String lastScheduleTime) {
    this.lastScheduleTime = lastScheduleTime;
  }

  public String getLastSuccessfulTime() {
    return lastSuccessfulTime;
  }

  public void setLastSuccessfulTime(String lastSuccessfulTime) {
    this.lastSuccessfulTime = lastSuccessfulTime;
  }

  public String getNextScheduleTime() {
    return nextScheduleTime;
  }

  public void setNextScheduleTime(String nextScheduleTime) {
    this.nextScheduleTime = nextScheduleTime;
  }
}
