package io.thinvol.operator;

import io.fabric8.kubernetes.api.model.Pod;
import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.operator.model.Names;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The first step of a deleted backend's teardown: once its DaemonSet is deleted, everything else
 * waits until the node pods have stopped. Their sidecars run on the Role, RoleBinding,
 * ServiceAccount and cluster bindings the rest of the teardown removes: removed under a running
 * pod, the provisioner's last requests are refused (403) and the resizer may renew its Lease after
 * it was deleted. A pod still there after {@link #PATIENCE} (on a node that is gone, it never stops
 * by itself) no longer holds the teardown up.
 */
final class NodePodsTeardown {

  /** The node pods stop within their 30 s grace period; four times that is not a normal stop. */
  static final Duration PATIENCE = Duration.ofMinutes(2);

  /** Pod deletions wake the teardown at once (the pods are watched); this covers the patience. */
  static final Duration LOOK_AGAIN = Duration.ofSeconds(10);

  private final Clock clock;
  private final Map<String, Instant> waitingSince = new ConcurrentHashMap<>();

  NodePodsTeardown(Clock clock) {
    this.clock = clock;
  }

  /**
   * Where the node pods' stop stands.
   *
   * @param running the pods still there, each as {@code name on node}
   * @param lookAgain when to look again while waiting; null once the teardown may go on
   */
  record Stop(List<String> running, Duration lookAgain) {

    boolean waiting() {
      return lookAgain != null;
    }

    /** Going on although pods are still there: the patience ran out. */
    boolean gaveUp() {
      return !waiting() && !running.isEmpty();
    }
  }

  /** Whether the node pods of a backend whose DaemonSet is deleted, {@code pods}, have gone. */
  Stop stop(StorageBackend backend, Collection<Pod> pods) {
    String uid = backend.getMetadata().getUid();
    List<String> running = pods.stream().map(NodePodsTeardown::describe).sorted().toList();
    if (running.isEmpty()) {
      waitingSince.remove(uid);
      return new Stop(running, null);
    }
    Instant now = clock.instant();
    Duration waited = Duration.between(waitingSince.computeIfAbsent(uid, k -> now), now);
    if (waited.compareTo(PATIENCE) >= 0) {
      waitingSince.remove(uid);
      return new Stop(running, null);
    }
    Duration left = PATIENCE.minus(waited);
    return new Stop(running, left.compareTo(LOOK_AGAIN) < 0 ? left : LOOK_AGAIN);
  }

  /** The status message while the teardown waits. */
  static String waitingMessage(StorageBackend backend, Stop stop) {
    return String.format(
        "the DaemonSet %s is deleted; its permissions are removed once its node pods have"
            + " stopped, %d still running: %s",
        Names.nodeDaemonSet(backend), stop.running().size(), String.join(", ", stop.running()));
  }

  /** The Warning when the teardown goes on without them. */
  static String gaveUpMessage(String namespace, Stop stop) {
    return String.format(
        "node pods still running %d minutes after their DaemonSet was deleted: %s; their"
            + " permissions are removed now, so their sidecars' requests are refused until they"
            + " stop. A pod on a node that is gone stops only when the Node object is deleted or"
            + " the pod is deleted by force (kubectl -n %s delete pod <pod> --grace-period=0"
            + " --force)",
        PATIENCE.toMinutes(), String.join(", ", stop.running()), namespace);
  }

  private static String describe(Pod pod) {
    String node = pod.getSpec() == null ? null : pod.getSpec().getNodeName();
    return pod.getMetadata().getName() + " on " + (node == null ? "no node yet" : node);
  }
}
