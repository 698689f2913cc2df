package io.thinvol.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/** What one ReclaimSpace service answered the last time it was called. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class ReclaimStep {

  @JsonPropertyDescription("Succeeded, Failed or Skipped.")
  private String result;

  @JsonPropertyDescription("What the driver said, in its words.")
  private String message;

  public ReclaimStep() {}

  public ReclaimStep(String result, String message) {
    this.result = result;
    this.message = message;
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
}
