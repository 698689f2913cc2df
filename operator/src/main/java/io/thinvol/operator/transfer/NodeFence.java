package io.thinvol.operator.transfer;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;
import java.util.Optional;

/**
 * Whether Kubernetes says a node is dead and fenced: the {@code node.kubernetes.io/out-of-service}
 * taint (non-graceful node shutdown), or the Node deleted. NotReady alone is not: a node cut off by
 * a partition may still be writing to its volumes.
 */
public final class NodeFence {

  public static final String OUT_OF_SERVICE = "node.kubernetes.io/out-of-service";

  private final KubernetesClient client;

  public NodeFence(KubernetesClient client) {
    this.client = client;
  }

  /** Why the node is fenced, or empty when it is not (it exists and has no such taint). */
  public Optional<String> fenced(String nodeName) {
    Node node = client.nodes().withName(nodeName).get();
    return why(nodeName, node);
  }

  /** {@link #fenced} of a Node already read ({@code null}: deleted). */
  public static Optional<String> why(String nodeName, Node node) {
    if (node == null || node.getMetadata().getDeletionTimestamp() != null) {
      return Optional.of("node " + nodeName + " was deleted");
    }
    List<Taint> taints = node.getSpec() == null ? null : node.getSpec().getTaints();
    if (taints != null && taints.stream().anyMatch(t -> OUT_OF_SERVICE.equals(t.getKey()))) {
      return Optional.of("node " + nodeName + " has the " + OUT_OF_SERVICE + " taint");
    }
    return Optional.empty();
  }

  /** Whether the node is there, not fenced, and Ready. */
  public boolean up(String nodeName) {
    Node node = client.nodes().withName(nodeName).get();
    return why(nodeName, node).isEmpty()
        && node.getStatus() != null
        && node.getStatus().getConditions() != null
        && node.getStatus().getConditions().stream()
            .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
  }
}
