package io.thinvol.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** A StorageClass the operator creates for a backend (binding mode WaitForFirstConsumer). */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class StorageClassSpec {

  @JsonPropertyDescription("Name of the StorageClass.")
  @Required
  @Size(max = 253) // a DNS subdomain
  @Pattern("^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$")
  private String name;

  @JsonPropertyDescription("Make it the cluster's default StorageClass.")
  @JsonProperty("default")
  @Default("false")
  private Boolean isDefault;

  @JsonPropertyDescription("What happens to a volume when its claim is deleted.")
  @Default("Delete")
  private ReclaimPolicy reclaimPolicy;

  @JsonPropertyDescription("Allow claims to grow.")
  @Default("true")
  private Boolean allowVolumeExpansion;

  @JsonPropertyDescription("Mount options for volumes of this class, e.g. noatime.")
  private List<String> mountOptions;

  @JsonPropertyDescription(
      "StorageClass parameters; csi.storage.k8s.io/fstype chooses ext4 or xfs.")
  private Map<String, String> parameters;

  @JsonPropertyDescription(
      "How the volumes' loop devices reach their image files: direct (O_DIRECT, the data is cached"
          + " once, in the pod's memory) or buffered (through the host's page cache as well)."
          + " Default: the driver's, direct. Takes precedence over parameters.ioMode; a"
          + " VolumeAttributesClass can change it later.")
  private IoMode ioMode;

  /** The driver's {@code ioMode} parameter. */
  public enum IoMode {
    @JsonProperty("direct")
    DIRECT,
    @JsonProperty("buffered")
    BUFFERED;

    /** The parameter's value. */
    public String value() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** Kubernetes reclaim policies. */
  public enum ReclaimPolicy {
    Delete,
    Retain
  }

  public String getName() {
    return name;
  }

  public void setName(String name) {
    this.name = name;
  }

  public Boolean getIsDefault() {
    return isDefault;
  }

  public void setIsDefault(Boolean isDefault) {
    this.isDefault = isDefault;
  }

  public ReclaimPolicy getReclaimPolicy() {
    return reclaimPolicy;
  }

  public void setReclaimPolicy(ReclaimPolicy reclaimPolicy) {
    this.reclaimPolicy = reclaimPolicy;
  }

  public Boolean getAllowVolumeExpansion() {
    return allowVolumeExpansion;
  }

  public void setAllowVolumeExpansion(Boolean allowVolumeExpansion) {
    this.allowVolumeExpansion = allowVolumeExpansion;
  }

  public List<String> getMountOptions() {
    return mountOptions;
  }

  public void setMountOptions(List<String> mountOptions) {
    this.mountOptions = mountOptions;
  }

  public IoMode getIoMode() {
    return ioMode;
  }

  public void setIoMode(IoMode ioMode) {
    this.ioMode = ioMode;
  }

  public Map<String, String> getParameters() {
    return parameters;
  }

  public void setParameters(Map<String, String> parameters) {
    this.parameters = parameters;
  }
}
