package io.thinvol.driver.metrics;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.DoubleSupplier;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The driver's metrics in Prometheus' text format. Hand-rolled on purpose: a handful of counters
 * and one histogram do not justify a client library on every node.
 */
public final class Metrics {

  private static final double[] BUCKETS = {
    0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300
  };

  private final ConcurrentMap<String, LongAdder> calls = new ConcurrentHashMap<>();
  private final ConcurrentMap<String, Histogram> durations = new ConcurrentHashMap<>();
  private final ConcurrentMap<String, LongAdder> reclaimed = new ConcurrentHashMap<>();
  private final Map<String, Supplier<String>> gauges = new TreeMap<>();

  /** Records one finished RPC. */
  public void call(String method, String code, long nanos) {
    calls.computeIfAbsent(method + "\u0000" + code, k -> new LongAdder()).increment();
    durations.computeIfAbsent(method, k -> new Histogram()).observe(nanos / 1e9);
  }

  /** Records bytes a reclaim gave back; {@code side} is node or controller. */
  public void reclaimed(String side, long bytes) {
    if (bytes > 0) {
      reclaimed.computeIfAbsent(side, k -> new LongAdder()).add(bytes);
    }
  }

  /** A value read at scrape time, e.g. the number of volumes. */
  public synchronized void gauge(String name, LongSupplier value) {
    gauges.put(name, () -> Long.toString(value.getAsLong()));
  }

  /** A value with a fraction read at scrape time, e.g. a configured ratio. */
  public synchronized void decimalGauge(String name, DoubleSupplier value) {
    gauges.put(name, () -> Double.toString(value.getAsDouble()));
  }

  /** The exposition, metric by metric. */
  public synchronized String scrape() {
    StringBuilder out = new StringBuilder();
    out.append("# HELP thinvol_grpc_requests_total gRPC calls by method and status code.\n");
    out.append("# TYPE thinvol_grpc_requests_total counter\n");
    new TreeMap<>(calls)
        .forEach(
            (key, count) -> {
              String[] parts = key.split("\u0000");
              out.append("thinvol_grpc_requests_total{method=\"")
                  .append(parts[0])
                  .append("\",code=\"")
                  .append(parts[1])
                  .append("\"} ")
                  .append(count.sum())
                  .append('\n');
            });
    out.append("# HELP thinvol_grpc_request_duration_seconds gRPC call latency by method.\n");
    out.append("# TYPE thinvol_grpc_request_duration_seconds histogram\n");
    new TreeMap<>(durations).forEach((method, histogram) -> histogram.write(out, method));
    out.append(
        "# HELP thinvol_reclaimed_bytes_total Bytes given back to the data dir by reclaims.\n");
    out.append("# TYPE thinvol_reclaimed_bytes_total counter\n");
    new TreeMap<>(reclaimed)
        .forEach(
            (side, bytes) ->
                out.append("thinvol_reclaimed_bytes_total{side=\"")
                    .append(side)
                    .append("\"} ")
                    .append(bytes.sum())
                    .append('\n'));
    gauges.forEach(
        (name, value) -> {
          out.append("# TYPE ").append(name).append(" gauge\n");
          out.append(name).append(' ').append(value.get()).append('\n');
        });
    return out.toString();
  }

  private static final class Histogram {
    private final AtomicLongArray counts = new AtomicLongArray(BUCKETS.length);
    private final LongAdder total = new LongAdder();
    private final LongAdder sumMicros = new LongAdder();

    void observe(double seconds) {
      for (int i = 0; i < BUCKETS.length; i++) {
        if (seconds <= BUCKETS[i]) {
          counts.incrementAndGet(i);
          break;
        }
      }
      total.increment();
      sumMicros.add((long) (seconds * 1e6));
    }

    void write(StringBuilder out, String method) {
      long cumulative = 0;
      for (int i = 0; i < BUCKETS.length; i++) {
        cumulative += counts.get(i);
        line(out, method, Double.toString(BUCKETS[i]), cumulative);
      }
      line(out, method, "+Inf", total.sum());
      out.append("thinvol_grpc_request_duration_seconds_sum{method=\"")
          .append(method)
          .append("\"} ")
          .append(sumMicros.sum() / 1e6)
          .append('\n');
      out.append("thinvol_grpc_request_duration_seconds_count{method=\"")
          .append(method)
          .append("\"} ")
          .append(total.sum())
          .append('\n');
    }

    private static void line(StringBuilder out, String method, String le, long count) {
      out.append("thinvol_grpc_request_duration_seconds_bucket{method=\"")
          .append(method)
          .append("\",le=\"")
          .append(le)
          .append("\"} ")
          .append(count)
          .append('\n');
    }
  }
}
