package io.thinvol.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/** Image overrides; anything unset is the operator's default for its version. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class ImagesSpec {

  @JsonPropertyDescription(
      "The thinvol driver. Default: the operator's RELATED_IMAGE_DRIVER, the thinvol-driver"
          + " image of the driver's version.")
  private String driver;

  @JsonPropertyDescription("The node-driver-registrar sidecar.")
  private String nodeDriverRegistrar;

  @JsonPropertyDescription("The external-provisioner sidecar (runs on every node).")
  private String provisioner;

  @JsonPropertyDescription("The external-resizer sidecar.")
  private String resizer;

  @JsonPropertyDescription("The external-snapshotter sidecar.")
  private String snapshotter;

  @JsonPropertyDescription("The livenessprobe sidecar.")
  private String livenessProbe;

  public String getDriver() {
    return driver;
  }

  public void setDriver(String driver) {
    this.driver = driver;
  }

  public String getNodeDriverRegistrar() {
    return nodeDriverRegistrar;
  }

  public void setNodeDriverRegistrar(String nodeDriverRegistrar) {
    this.nodeDriverRegistrar = nodeDriverRegistrar;
  }

  public String getProvisioner() {
    return provisioner;
  }

  public void setProvisioner(String provisioner) {
    this.provisioner = provisioner;
  }

  public String getResizer() {
    return resizer;
  }

  public void setResizer(String resizer) {
    this.resizer = resizer;
  }

  public String getSnapshotter() {
    return snapshotter;
  }

  public void setSnapshotter(String snapshotter) {
    this.snapshotter = snapshotter;
  }

  public String getLivenessProbe() {
    return livenessProbe;
  }

  public void setLivenessProbe(String livenessProbe) {
    this.livenessProbe = livenessProbe;
  }
}
