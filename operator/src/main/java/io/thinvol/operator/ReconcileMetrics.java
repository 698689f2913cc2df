package io.thinvol.operator;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.javaoperatorsdk.operator.api.monitoring.Metrics;
import io.javaoperatorsdk.operator.api.reconciler.RetryInfo;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * What the operator has done, for Prometheus at {@code /metrics}: counters JOSDK reports to, in the
 * text format, without a metrics library (the operator's image stays small).
 */
final class ReconcileMetrics implements Metrics {

  private final LongAdder reconciliations = new LongAdder();
  private final LongAdder retries = new LongAdder();
  private final LongAdder failures = new LongAdder();
  private final LongAdder cleanups = new LongAdder();
  private final LongAdder events = new LongAdder();
  private final AtomicLong inFlight = new AtomicLong();
  private final LongAdder executionNanos = new LongAdder();
  private final LongAdder executions = new LongAdder();

  @Override
  public void receivedEvent(
      io.javaoperatorsdk.operator.processing.event.Event event, Map<String, Object> metadata) {
    events.increment();
  }

  @Override
  public void reconcileCustomResource(
      HasMetadata resource, RetryInfo retryInfo, Map<String, Object> metadata) {
    reconciliations.increment();
    if (retryInfo != null && retryInfo.getAttemptCount() > 0) {
      retries.increment();
    }
  }

  @Override
  public void failedReconciliation(
      HasMetadata resource, Exception exception, Map<String, Object> metadata) {
    failures.increment();
  }

  @Override
  public void reconciliationExecutionStarted(HasMetadata resource, Map<String, Object> metadata) {
    inFlight.incrementAndGet();
  }

  @Override
  public void reconciliationExecutionFinished(HasMetadata resource, Map<String, Object> metadata) {
    inFlight.decrementAndGet();
  }

  @Override
  public void cleanupDoneFor(ResourceID resourceID, Map<String, Object> metadata) {
    cleanups.increment();
  }

  @Override
  public <T> T timeControllerExecution(ControllerExecution<T> execution) throws Exception {
    long start = System.nanoTime();
    try {
      return execution.execute();
    } finally {
      executionNanos.add(System.nanoTime() - start);
      executions.increment();
    }
  }

  /** The Prometheus text exposition of every counter. */
  String render() {
    StringBuilder out = new StringBuilder();
    counter(out, "reconciliations_total", "Reconciliations started.", reconciliations.sum());
    counter(out, "reconcile_retries_total", "Reconciliations that retry a failure.", retries.sum());
    counter(out, "reconcile_failures_total", "Reconciliations that failed.", failures.sum());
    counter(
        out,
        "cleanups_total",
        "Deleted StorageBackends whose objects were removed.",
        cleanups.sum());
    counter(out, "events_total", "Events received from the watched resources.", events.sum());
    gauge(out, "reconciliations_in_flight", "Reconciliations running now.", inFlight.get());
    counter(
        out, "reconcile_seconds_sum", "Time spent in reconciliations.", executionNanos.sum() / 1e9);
    counter(out, "reconcile_seconds_count", "Timed reconciliations.", executions.sum());
    return out.toString();
  }

  private static void counter(StringBuilder out, String name, String help, Number value) {
    metric(out, name, help, "counter", value);
  }

  private static void gauge(StringBuilder out, String name, String help, Number value) {
    metric(out, name, help, "gauge", value);
  }

  private static void metric(
      StringBuilder out, String name, String help, String type, Number value) {
    String full = "thinvol_operator_" + name;
    out.append("# HELP ").append(full).append(' ').append(help).append('\n');
    out.append("# TYPE ").append(full).append(' ').append(type).append('\n');
    out.append(full).append(' ').append(value).append('\n');
  }
}
