package io.thinvol.addons.call;

import io.javaoperatorsdk.operator.processing.event.ResourceID;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * Admits reclaim calls across all jobs: one per volume, and at most a backend's {@code
 * maxConcurrentPerNode} per node. Jobs waiting for a node are admitted oldest first, skipping those
 * whose volume is busy so one volume cannot hold up the node.
 */
public final class ReclaimLimits {

  /** A queued job re-asks at least this often; one that stopped asking is forgotten. */
  static final Duration FORGET_AFTER = Duration.ofMinutes(2);

  /** Whether a job may call now, and if not, why not in words. */
  public record Admission(boolean admitted, String why) {}

  private record Waiter(ResourceID job, String volume, Instant since, Instant lastAsked) {}

  private record Held(String node, String volume) {}

  private final Map<String, Map<ResourceID, Waiter>> waiting = new HashMap<>();
  private final Map<ResourceID, Held> held = new HashMap<>();
  private final Map<String, ResourceID> busyVolumes = new HashMap<>();
  private final Map<String, Integer> inFlight = new HashMap<>();

  /**
   * @param since orders the waiters of a node (the job's creation)
   * @param stillWaiting false for a job that was deleted or ended meanwhile: it leaves the queue
   */
  public synchronized Admission tryAdmit(
      ResourceID job,
      String node,
      String volume,
      int limit,
      Instant since,
      Instant now,
      Predicate<ResourceID> stillWaiting) {
    if (held.containsKey(job)) {
      return new Admission(true, "admitted");
    }
    Map<ResourceID, Waiter> queue = waiting.computeIfAbsent(node, n -> new LinkedHashMap<>());
    queue.put(job, new Waiter(job, volume, since, now));
    queue
        .values()
        .removeIf(
            w ->
                !w.job().equals(job)
                    && (w.lastAsked().plus(FORGET_AFTER).isBefore(now)
                        || !stillWaiting.test(w.job())));
    ResourceID busy = busyVolumes.get(volume);
    if (busy != null) {
      return new Admission(
          false, "another reclaim of this volume is running (job " + busy.getName() + ")");
    }
    int running = inFlight.getOrDefault(node, 0);
    List<Waiter> eligible =
        queue.values().stream()
            .filter(w -> !busyVolumes.containsKey(w.volume()))
            .sorted(
                Comparator.comparing(Waiter::since)
                    .thenComparing(w -> w.job().getNamespace().orElse(""))
                    .thenComparing(w -> w.job().getName()))
            .toList();
    int position = 0;
    while (!eligible.get(position).job().equals(job)) {
      position++;
    }
    if (position >= limit - running) {
      return new Admission(
          false,
          String.format(
              "waiting for node %s: %d of %d reclaims allowed there are running, %d job(s) ahead",
              node, running, limit, position));
    }
    queue.remove(job);
    held.put(job, new Held(node, volume));
    busyVolumes.put(volume, job);
    inFlight.merge(node, 1, Integer::sum);
    return new Admission(true, "admitted");
  }

  /**
   * Ends a job's call.
   *
   * @return the jobs waiting for the same node, which may go now
   */
  public synchronized Set<ResourceID> release(ResourceID job) {
    Held h = held.remove(job);
    if (h == null) {
      return Set.of();
    }
    busyVolumes.remove(h.volume(), job);
    inFlight.computeIfPresent(h.node(), (n, c) -> c > 1 ? c - 1 : null);
    return new HashSet<>(waiting.getOrDefault(h.node(), Map.of()).keySet());
  }

  /** Forgets a job that stopped waiting (it ended or was deleted). */
  public synchronized void withdraw(ResourceID job) {
    waiting.values().forEach(q -> q.remove(job));
  }

  /** Calls in flight per node, for the metrics. */
  public synchronized Map<String, Integer> inFlightByNode() {
    return new TreeMap<>(inFlight);
  }
}
