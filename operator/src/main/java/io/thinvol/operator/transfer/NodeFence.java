package io.thinvol.operator.transfer;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.thinvol.operator.nodeloss.NodeHealth;
import java.util.Optional;

/**
 * Whether Kubernetes says a node is dead and fenced ({@link NodeHealth#lost}: the Node deleted, or
 * the {@code node.kubernetes.io/out-of-service} taint of a non-graceful node shutdown), read from
 * the API server. NotReady alone is not: a node cut off by a partition may still be writing to its
 * volumes.
 */
public final class NodeFence {

  private final KubernetesClient client;

  public NodeFence(KubernetesClient client) {
    this.client = client;
  }

  /** Why the node is fenced ({@code node <name> is lost (...)}), or empty when it is not. */
  public Optional<String> fenced(String nodeName) {
    NodeHealth health = health(nodeName);
    return health.lost()
        ? Optional.of("node " + nodeName + " is " + health.describe())
        : Optional.empty();
  }

  /** Whether the node is there, not fenced, and Ready. */
  public boolean up(String nodeName) {
    return health(nodeName).ready();
  }

  private NodeHealth health(String nodeName) {
    return NodeHealth.of(Optional.ofNullable(client.nodes().withName(nodeName).get()));
  }
}
