package io.thinvol.addons;

import io.thinvol.addons.call.ReclaimLimits;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.Collectors;

/**
 * Space-reclaim metrics in the Prometheus text format, on the operator's {@code /metrics}: jobs by
 * result, bytes reclaimed, calls in flight per node and the last result of every PVC (so an alert
 * can fire on a PVC whose reclaims keep failing).
 */
public final class AddonsMetrics {

  private static final String PREFIX = "thinvol_reclaimspace_";

  private record JobKey(String result, String reason) {}

  private record NextRun(String source, long epochSeconds) {}

  /**
   * @param consecutiveFailures failed jobs of the PVC since its last success: an alert tells one
   *     failure (a node restarting) from a PVC whose reclaims keep failing
   */
  private record Last(
      boolean succeeded,
      long reclaimedBytes,
      long completedEpochSeconds,
      int consecutiveFailures) {}

  private final Map<JobKey, LongAdder> jobs = new ConcurrentHashMap<>();
  private final LongAdder reclaimedBytes = new LongAdder();
  private final Map<String, Last> lastByPvc = new ConcurrentHashMap<>();
  private final Map<String, NextRun> nextRunByPvc = new ConcurrentHashMap<>();
  private final ConcurrentSkipListSet<String> nodesSeen = new ConcurrentSkipListSet<>();
  private final ReclaimLimits limits;

  public AddonsMetrics(ReclaimLimits limits) {
    this.limits = limits;
  }

  /** A job ended. */
  public void finished(
      String namespace,
      String pvc,
      String result,
      String reason,
      long reclaimed,
      long completedEpochSeconds) {
    jobs.computeIfAbsent(new JobKey(result, reason), k -> new LongAdder()).increment();
    boolean succeeded = "Succeeded".equals(result);
    if (succeeded && reclaimed > 0) {
      reclaimedBytes.add(reclaimed);
    }
    lastByPvc.merge(
        labels("namespace", namespace, "persistentvolumeclaim", pvc),
        new Last(succeeded, reclaimed, completedEpochSeconds, succeeded ? 0 : 1),
        (before, now) ->
            succeeded
                ? now
                : new Last(
                    false, reclaimed, completedEpochSeconds, before.consecutiveFailures() + 1));
  }

  /** A PVC on an annotation schedule, and when it runs next. */
  public void scheduled(String namespace, String pvc, String source, long nextEpochSeconds) {
    nextRunByPvc.put(
        labels("namespace", namespace, "persistentvolumeclaim", pvc),
        new NextRun(source, nextEpochSeconds));
  }

  public void unscheduled(String namespace, String pvc) {
    nextRunByPvc.remove(labels("namespace", namespace, "persistentvolumeclaim", pvc));
  }

  /** A node a call went to; its in-flight gauge is shown from then on, 0 when idle. */
  public void nodeUsed(String node) {
    nodesSeen.add(node);
  }

  public String render() {
    StringBuilder out = new StringBuilder();
    header(out, "jobs_total", "ReclaimSpaceJobs that ended, by result and reason.", "counter");
    new TreeMap<String, Long>(
            jobs.entrySet().stream()
                .collect(
                    Collectors.toMap(
                        e -> labels("result", e.getKey().result(), "reason", e.getKey().reason()),
                        e -> e.getValue().sum())))
        .forEach((labels, value) -> sample(out, "jobs_total", labels, value));
    header(out, "reclaimed_bytes_total", "Bytes given back to the nodes' disks.", "counter");
    sample(out, "reclaimed_bytes_total", "", reclaimedBytes.sum());
    header(out, "calls_in_flight", "ReclaimSpace calls running, per node.", "gauge");
    Map<String, Integer> inFlight = limits.inFlightByNode();
    for (String node : nodesSeen) {
      sample(out, "calls_in_flight", labels("node", node), inFlight.getOrDefault(node, 0));
    }
    Map<String, Last> last = new TreeMap<>(lastByPvc);
    header(
        out, "last_result", "1 when the latest job of a PVC succeeded, 0 when it failed.", "gauge");
    last.forEach((labels, l) -> sample(out, "last_result", labels, l.succeeded() ? 1 : 0));
    header(
        out,
        "consecutive_failures",
        "Jobs of a PVC that failed in a row since its last success.",
        "gauge");
    last.forEach(
        (labels, l) -> sample(out, "consecutive_failures", labels, l.consecutiveFailures()));
    header(out, "last_reclaimed_bytes", "Bytes the latest job of a PVC reclaimed.", "gauge");
    last.forEach((labels, l) -> sample(out, "last_reclaimed_bytes", labels, l.reclaimedBytes()));
    header(
        out, "last_completion_timestamp_seconds", "When the latest job of a PVC ended.", "gauge");
    last.forEach(
        (labels, l) ->
            sample(out, "last_completion_timestamp_seconds", labels, l.completedEpochSeconds()));
    header(out, "scheduled_volumes", "PVCs reclaimed on an annotation schedule.", "gauge");
    sample(out, "scheduled_volumes", "", nextRunByPvc.size());
    header(
        out,
        "next_run_timestamp_seconds",
        "When a PVC's annotation schedule runs next, and where the schedule came from.",
        "gauge");
    new TreeMap<>(nextRunByPvc)
        .forEach(
            (labels, next) ->
                sample(
                    out,
                    "next_run_timestamp_seconds",
                    labels.substring(0, labels.length() - 1)
                        + ",source=\""
                        + escape(next.source())
                        + "\"}",
                    next.epochSeconds()));
    return out.toString();
  }

  private static void header(StringBuilder out, String name, String help, String type) {
    out.append("# HELP ").append(PREFIX).append(name).append(' ').append(help).append('\n');
    out.append("# TYPE ").append(PREFIX).append(name).append(' ').append(type).append('\n');
  }

  private static void sample(StringBuilder out, String name, String labels, Number value) {
    out.append(PREFIX).append(name).append(labels).append(' ').append(value).append('\n');
  }

  private static String labels(String... pairs) {
    StringBuilder out = new StringBuilder("{");
    for (int i = 0; i < pairs.length; i += 2) {
      if (i > 0) {
        out.append(',');
      }
      out.append(pairs[i]).append("=\"").append(escape(pairs[i + 1])).append('"');
    }
    return out.append('}').toString();
  }

  private static String escape(String value) {
    return value.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
  }
}
