package io.thinvol.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.kubernetes.api.model.ResourceRequirements;

/**
 * Resources of the node pods' sidecars. Each set replaces the default's requests or limits (each
 * section as a whole); the provisioner and resizer cache every PVC and PV of the cluster, so their
 * memory grows with the cluster's volumes, not with this backend's.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class SidecarResourcesSpec {

  @JsonPropertyDescription("The node-driver-registrar sidecar.")
  private ResourceRequirements nodeDriverRegistrar;

  @JsonPropertyDescription(
      "The external-provisioner sidecar; it caches every PVC and PV of the cluster (about 40 KiB"
          + " per volume). Default: requests 64Mi, limit 512Mi.")
  private ResourceRequirements provisioner;

  @JsonPropertyDescription(
      "The external-resizer sidecar; it caches every PVC and PV of the cluster. Default: requests"
          + " 64Mi, limit 512Mi.")
  private ResourceRequirements resizer;

  @JsonPropertyDescription("The external-snapshotter sidecar.")
  private ResourceRequirements snapshotter;

  @JsonPropertyDescription("The livenessprobe sidecar.")
  private ResourceRequirements livenessProbe;

  public ResourceRequirements getNodeDriverRegistrar() {
    return nodeDriverRegistrar;
  }

  public void setNodeDriverRegistrar(ResourceRequirements nodeDriverRegistrar) {
    this.nodeDriverRegistrar = nodeDriverRegistrar;
  }

  public ResourceRequirements getProvisioner() {
    return provisioner;
  }

  public void setProvisioner(ResourceRequirements provisioner) {
    this.provisioner = provisioner;
  }

  public ResourceRequirements getResizer() {
    return resizer;
  }

  public void setResizer(ResourceRequirements resizer) {
    this.resizer = resizer;
  }

  public ResourceRequirements getSnapshotter() {
    return snapshotter;
  }

  public void setSnapshotter(ResourceRequirements snapshotter) {
    this.snapshotter = snapshotter;
  }

  public ResourceRequirements getLivenessProbe() {
    return livenessProbe;
  }

  public void setLivenessProbe(ResourceRequirements livenessProbe) {
    this.livenessProbe = livenessProbe;
  }
}
