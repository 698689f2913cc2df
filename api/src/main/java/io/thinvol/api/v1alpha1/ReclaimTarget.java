package io.thinvol.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;

/** The object a job works on. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class ReclaimTarget {

  @JsonPropertyDescription("Name of a PersistentVolumeClaim in the job's namespace.")
  @Required
  @Size(max = 253) // a DNS subdomain
  @Pattern("^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$")
  @ValidationRule(value = "self == oldSelf", message = "persistentVolumeClaim is immutable")
  private String persistentVolumeClaim;

  public ReclaimTarget() {}

  public ReclaimTarget(String persistentVolumeClaim) {
    this.persistentVolumeClaim = persistentVolumeClaim;
  }

  public String getPersistentVolumeClaim() {
    return persistentVolumeClaim;
  }

  public void setPersistentVolumeClaim(String persistentVolumeClaim) {
    this.persistentVolumeClaim = persistentVolumeClaim;
  }
}
