package io.thinvol.operator.transfer;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.thinvol.addons.resolve.DriverEndpoint;
import io.thinvol.api.BackendNames;
import java.util.Optional;

/**
 * The driver pod of a backend on a node, as a move or a replication calls it: its CSI-Addons TLS
 * port. The pod's certificate is left to the copier to read (the calls are few).
 */
public final class DriverEndpoints {

  private final KubernetesClient client;
  private final String namespace;

  public DriverEndpoints(KubernetesClient client, String namespace) {
    this.client = client;
    this.namespace = namespace;
  }

  /** The Ready driver pod with an IP, or empty. */
  public Optional<DriverEndpoint> on(String backend, String node) {
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
        .filter(pod -> DriverEndpoint.ready(pod) && pod.getStatus().getPodIP() != null)
        .findFirst()
        .map(pod -> DriverEndpoint.of(backend, pod, null));
  }
}
