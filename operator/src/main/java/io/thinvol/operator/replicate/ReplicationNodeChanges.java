package io.thinvol.operator.replicate;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import java.util.Objects;

/**
 * The changes of a Node that a replication acts on: its taints (the out-of-service taint fails a
 * claim over), its readiness (a stale copy's node coming back) and its deletion. A Node's status is
 * rewritten every few seconds by its kubelet; the rest of those updates wake nothing.
 */
final class ReplicationNodeChanges {

  private ReplicationNodeChanges() {}

  static boolean matter(Node now, Node before) {
    return !Objects.equals(taints(now), taints(before))
        || ready(now) != ready(before)
        || now.getMetadata().getDeletionTimestamp() != null;
  }

  private static Object taints(Node node) {
    return node.getSpec() == null ? null : node.getSpec().getTaints();
  }

  private static boolean ready(Node node) {
    if (node.getStatus() == null || node.getStatus().getConditions() == null) {
      return false;
    }
    for (NodeCondition condition : node.getStatus().getConditions()) {
      if ("Ready".equals(condition.getType())) {
        return "True".equals(condition.getStatus());
      }
    }
    return false;
  }
}
