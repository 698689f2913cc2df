package io.thinvol.operator.move;

import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.thinvol.addons.resolve.DriverEndpoint;
import io.thinvol.api.BackendNames;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The driver pod of a backend on a node, as a move calls it: its CSI-Addons TLS port. The pod's
 * certificate is left to the copier to read (the move's calls are few).
 */
final class DriverEndpoints {

  private final KubernetesClient client;
  private final String namespace;

  DriverEndpoints(KubernetesClient client, String namespace) {
    this.client = client;
    this.namespace = namespace;
  }

  /** The Ready driver pod with an IP, or empty. */
  Optional<DriverEndpoint> on(String backend, String node) {
    return client
        .pods()
        .inNamespace(namespace)
        .withLabel("app.kubernetes.io/name", BackendNames.NODE_POD_NAME)
        .withLabel(BackendNames.BACKEND_LABEL, backend)
        .list()
        .getItems()
        .stream()
        .filter(pod -> pod.getSpec() != null && node.equals(pod.getSpec().getNodeName()))
        .filter(pod -> pod.getMetadata().getDeletionTimestamp() == null)
        .filter(DriverEndpoints::ready)
        .findFirst()
        .map(
            pod ->
                new DriverEndpoint(
                    backend,
                    pod.getMetadata().getName(),
                    pod.getStatus().getPodIP(),
                    addonsPort(pod),
                    null));
  }

  private static boolean ready(Pod pod) {
    return pod.getStatus() != null
        && pod.getStatus().getPodIP() != null
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
}
