package io.thinvol.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.ValidationRule;
import java.util.Map;

/** The provisioner whose claims the class replicates, and how. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
    value = "has(self.parameters) == has(oldSelf.parameters)",
    message = "parameters are immutable; create another class")
public class VolumeReplicationClassSpec {

  @JsonPropertyDescription(
      "The CSI driver of the claims replicated: a StorageBackend's, <backend>.thinvol.io.")
  @Required
  @Pattern("^[a-z0-9]([-a-z0-9]*[a-z0-9])?\\.thinvol\\.io$")
  @ValidationRule(value = "self == oldSelf", message = "provisioner is immutable")
  private String provisioner;

  @JsonPropertyDescription(
      "schedulingInterval: the interval between syncs, a Go duration from 10s to 24h (default"
          + " 5m). standbyNodeSelector: key=value[,key=value], the labels the standby node must"
          + " have (default: any node that runs the driver). Other keys are refused.")
  @ValidationRule(value = "self == oldSelf", message = "parameters are immutable")
  private Map<String, String> parameters;

  public String getProvisioner() {
    return provisioner;
  }

  public void setProvisioner(String provisioner) {
    this.provisioner = provisioner;
  }

  public Map<String, String> getParameters() {
    return parameters;
  }

  public void setParameters(Map<String, String> parameters) {
    this.parameters = parameters;
  }
}
