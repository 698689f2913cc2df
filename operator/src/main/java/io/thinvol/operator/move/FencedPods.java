package io.thinvol.operator.move;

import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A failover's claim is held by the pods of its dead and fenced source node: no kubelet is left to
 * end them, so Kubernetes removes them only by its pod garbage collector, up to 20 s after an
 * out-of-service taint and 40 s or more after a Node's deletion. Until then the claim cannot be
 * deleted (its protection finalizer waits for them) and the workload's controller does not start
 * its pod again. The failover deletes them at once, with the grace period of 0 that the collector
 * uses, and only while the node is still fenced: a node back in service runs its pods for real.
 */
final class FencedPods {

  private FencedPods() {}

  /**
   * Deletes the pods of the fenced source node that use the claim, when the move is a failover.
   * Each pod is read again just before its deletion, so a pod of the same name that its controller
   * made meanwhile on another node is never deleted.
   */
  static void release(Move move) {
    if (!ReplicaMove.failsOver(move)) {
      return;
    }
    Optional<String> fence = ReplicaMove.sourceFenced(move);
    if (fence.isEmpty()) {
      return;
    }
    MoveNames names = move.names();
    String node = move.status().getSourceNode();
    List<String> deleted = new ArrayList<>();
    for (Pod pod : move.cluster().podsOn(names.namespace(), names.claim(), node)) {
      if (move.cluster().deletePodNow(pod, node)) {
        deleted.add(pod.getMetadata().getName());
      }
    }
    if (!deleted.isEmpty()) {
      move.normal(
          "DeletedFencedPods",
          "deleted pod "
              + String.join(", ", deleted)
              + " of PersistentVolumeClaim "
              + names.claim()
              + " at once ("
              + fence.get()
              + "; no kubelet is left to end it), so that its controller starts it on node "
              + move.status().getTargetNode());
    }
  }
}
