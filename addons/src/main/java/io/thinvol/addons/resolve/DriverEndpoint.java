package io.thinvol.addons.resolve;

import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.Pod;
import io.thinvol.api.BackendNames;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A driver pod's CSI-Addons TLS port.
 *
 * @param backendName whose certificate the pod presents
 * @param certificate that certificate (PEM) from the operator's cache, so that a call reads no
 *     Secret; null when the cache does not hold it yet (the caller reads the Secret then)
 */
public record DriverEndpoint(
    String backendName, String podName, String host, int port, String certificate) {

  /**
   * The TLS port of a driver pod that has an IP: the container port named for it, else the default.
   */
  public static DriverEndpoint of(String backendName, Pod pod, String certificate) {
    return new DriverEndpoint(
        backendName,
        pod.getMetadata().getName(),
        pod.getStatus().getPodIP(),
        addonsPort(pod),
        certificate);
  }

  /** Whether the pod's Ready condition is True. */
  public static boolean ready(Pod pod) {
    return pod.getStatus() != null
        && Optional.ofNullable(pod.getStatus().getConditions()).orElse(List.of()).stream()
            .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
  }

  private static int addonsPort(Pod pod) {
    return pod.getSpec().getContainers().stream()
        .flatMap(c -> Optional.ofNullable(c.getPorts()).orElse(List.of()).stream())
        .filter(p -> BackendNames.ADDONS_PORT_NAME.equals(p.getName()))
        .map(ContainerPort::getContainerPort)
        .filter(Objects::nonNull)
        .findFirst()
        .orElse(BackendNames.ADDONS_PORT);
  }

  @Override
  public String toString() {
    return podName + " (" + host + ":" + port + ")";
  }
}
