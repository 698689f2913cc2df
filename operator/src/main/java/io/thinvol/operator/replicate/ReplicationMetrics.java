package io.thinvol.operator.replicate;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.function.ToDoubleFunction;

/**
 * Per VolumeReplication: the point in time its standby holds (since it was created, until its first
 * sync), the last sync's duration and bytes, its interval, and whether it is degraded. An alert
 * compares the first with the interval ({@code ThinvolReplicationLagging}); a replication's series
 * go with it.
 */
public final class ReplicationMetrics {

  private record Key(String namespace, String name, String claim) {}

  private record Figures(
      double syncedUntil, double duration, long bytes, double interval, boolean degraded) {}

  private final Map<Key, Figures> figures =
      new ConcurrentSkipListMap<>(
          java.util.Comparator.comparing(Key::namespace).thenComparing(Key::name));

  /** What a running replication shows before (or between) syncs. */
  void known(ReplicationNames names, Duration interval, Instant syncedUntil, boolean degraded) {
    figures.compute(
        key(names),
        (k, was) ->
            new Figures(
                syncedUntil.toEpochMilli() / 1000.0,
                was == null ? 0 : was.duration(),
                was == null ? 0 : was.bytes(),
                interval.toMillis() / 1000.0,
                degraded));
  }

  /** A sync just recorded. */
  void synced(
      ReplicationNames names, Duration interval, Instant syncTime, Duration took, long bytes) {
    figures.put(
        key(names),
        new Figures(
            syncTime.toEpochMilli() / 1000.0,
            took.toMillis() / 1000.0,
            bytes,
            interval.toMillis() / 1000.0,
            false));
  }

  void forget(ReplicationNames names) {
    figures.remove(key(names));
  }

  /** The Prometheus text exposition. */
  public String render() {
    StringBuilder out = new StringBuilder();
    gauge(
        out,
        "thinvol_replication_last_sync_timestamp_seconds",
        "The point in time the standby holds (the replication's creation before its first sync).",
        Figures::syncedUntil);
    gauge(
        out,
        "thinvol_replication_last_sync_duration_seconds",
        "How long the last sync took.",
        Figures::duration);
    gauge(
        out,
        "thinvol_replication_last_sync_bytes",
        "The bytes the last sync sent between the nodes.",
        f -> f.bytes());
    gauge(
        out,
        "thinvol_replication_interval_seconds",
        "The interval between syncs (the VolumeReplicationClass's schedulingInterval).",
        Figures::interval);
    gauge(
        out,
        "thinvol_replication_degraded",
        "1 while the replication is Degraded (no standby, syncs failing, a failover's loss).",
        f -> f.degraded() ? 1 : 0);
    return out.toString();
  }

  private void gauge(StringBuilder out, String name, String help, ToDoubleFunction<Figures> value) {
    out.append("# HELP ").append(name).append(' ').append(help).append('\n');
    out.append("# TYPE ").append(name).append(" gauge\n");
    figures.forEach(
        (key, f) ->
            out.append(name)
                .append("{namespace=\"")
                .append(key.namespace())
                .append("\",volumereplication=\"")
                .append(key.name())
                .append("\",persistentvolumeclaim=\"")
                .append(key.claim())
                .append("\"} ")
                .append(value.applyAsDouble(f))
                .append('\n'));
  }

  private static Key key(ReplicationNames names) {
    return new Key(names.namespace(), names.name(), names.claim());
  }
}
