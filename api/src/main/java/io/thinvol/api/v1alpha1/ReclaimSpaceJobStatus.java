package io.thinvol.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.List;

/** How a ReclaimSpaceJob went; {@code kubectl describe rsj <name>} shows it. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class ReclaimSpaceJobStatus extends ConditionedStatus {

  @JsonPropertyDescription("Succeeded or Failed once the job is over; empty while it runs.")
  private String result;

  @JsonPropertyDescription("How it ended, or the last error, in plain words.")
  private String message;

  @JsonPropertyDescription("Bytes given back to the node's disk: preUsage - postUsage.")
  private Quantity reclaimedSpace;

  @JsonPropertyDescription("Bytes the volume's image used on the node before the reclaim.")
  private Quantity preUsage;

  @JsonPropertyDescription("Bytes the volume's image used on the node after the reclaim.")
  private Quantity postUsage;

  @JsonPropertyDescription("What each ReclaimSpace service answered.")
  private ReclaimSteps steps;

  @JsonPropertyDescription("The node that holds the volume.")
  private String nodeName;

  @JsonPropertyDescription("Attempts after the first.")
  private Integer retries;

  @JsonPropertyDescription("When the first attempt began.")
  private String startTime;

  @JsonPropertyDescription("When the latest attempt began.")
  private String lastAttemptTime;

  @JsonPropertyDescription("When the next attempt begins, while the job backs off.")
  private String nextAttemptTime;

  @JsonPropertyDescription("When the job ended.")
  private String completionTime;

  @JsonPropertyDescription("Running, Succeeded, Failed; the message says why.")
  @Override
  public List<Condition> getConditions() {
    return super.getConditions();
  }

  public String getResult() {
    return result;
  }

  public void setResult(String result) {
    this.result = result;
  }

  public String getMessage() {
    return message;
  }

  public void setMessage(String message) {
    this.message = message;
  }

  public Quantity getReclaimedSpace() {
    return reclaimedSpace;
  }

  public void setReclaimedSpace(Quantity reclaimedSpace) {
    this.reclaimedSpace = reclaimedSpace;
  }

  public Quantity getPreUsage() {
    return preUsage;
  }

  public void setPreUsage(Quantity preUsage) {
    this.preUsage = preUsage;
  }

  public Quantity getPostUsage() {
    return postUsage;
  }

  public void setPostUsage(Quantity postUsage) {
    this.postUsage = postUsage;
  }

  public ReclaimSteps getSteps() {
    return steps;
  }

  public void setSteps(ReclaimSteps steps) {
    this.steps = steps;
  }

  public String getNodeName() {
    return nodeName;
  }

  public void setNodeName(String nodeName) {
    this.nodeName = nodeName;
  }

  public Integer getRetries() {
    return retries;
  }

  public void setRetries(Integer retries) {
    this.retries = retries;
  }

  public String getStartTime() {
    return startTime;
  }

  public void setStartTime(String startTime) {
    this.startTime = startTime;
  }

  public String getLastAttemptTime() {
    return lastAttemptTime;
  }

  public void setLastAttemptTime(String lastAttemptTime) {
    this.lastAttemptTime = lastAttemptTime;
  }

  public String getNextAttemptTime() {
    return nextAttemptTime;
  }

  public void setNextAttemptTime(String nextAttemptTime) {
    this.nextAttemptTime = nextAttemptTime;
  }

  public String getCompletionTime() {
    return completionTime;
  }

  public void setCompletionTime(String completionTime) {
    this.completionTime = completionTime;
  }
}
