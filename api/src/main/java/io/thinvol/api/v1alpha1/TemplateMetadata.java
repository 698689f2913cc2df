package io.thinvol.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.Map;

/** What a job template may set on the jobs it makes: labels and annotations. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class TemplateMetadata {

  @JsonPropertyDescription("Labels put on each job.")
  private Map<String, String> labels;

  @JsonPropertyDescription("Annotations put on each job.")
  private Map<String, String> annotations;

  public Map<String, String> getLabels() {
    return labels;
  }

  public void setLabels(Map<String, String> labels) {
    this.labels = labels;
  }

  public Map<String, String> getAnnotations() {
    return annotations;
  }

  public void setAnnotations(Map<String, String> annotations) {
    this.annotations = annotations;
  }
}
