package io.thinvol.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Required;

/** The ReclaimSpaceJob a cron job creates at each run. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class ReclaimSpaceJobTemplate {

  @JsonPropertyDescription("Labels and annotations copied onto each job.")
  private TemplateMetadata metadata;

  @JsonPropertyDescription("The spec of each job.")
  @Required
  private ReclaimSpaceJobSpec spec;

  public TemplateMetadata getMetadata() {
    return metadata;
  }

  public void setMetadata(TemplateMetadata metadata) {
    this.metadata = metadata;
  }

  public ReclaimSpaceJobSpec getSpec() {
    return spec;
  }

  public void setSpec(ReclaimSpaceJobSpec spec) {
    this.spec = spec;
  }
}
