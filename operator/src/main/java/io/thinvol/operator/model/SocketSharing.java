package io.thinvol.operator.model;

import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.SecurityContextBuilder;

/**
 * How the sidecars may use the driver's unix socket on SELinux-enforcing nodes (every OpenShift
 * node). The driver is privileged, so the runtime runs it unconfined and the sockets it creates in
 * the kubelet's plugin directory carry its type; a sidecar confined as {@code container_t} may not
 * connect to them, so the plugin would never register. Upstream's examples and OpenShift's own CSI
 * drivers run those containers privileged; the sidecars need none of what privileged gives besides
 * this (devices, all capabilities), so they get only the unconfined SELinux type {@code spc_t}.
 * Where SELinux is off the type is ignored.
 */
public final class SocketSharing {

  /** The SELinux type of "super privileged containers": not confined by the container policy. */
  public static final String UNCONFINED_TYPE = "spc_t";

  private SocketSharing() {}

  static SecurityContext securityContext() {
    return new SecurityContextBuilder()
        .withNewSeLinuxOptions()
        .withType(UNCONFINED_TYPE)
        .endSeLinuxOptions()
        .build();
  }
}
