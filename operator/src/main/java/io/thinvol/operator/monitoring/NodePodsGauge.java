package io.thinvol.operator.monitoring;

import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.DaemonSetStatus;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * {@code thinvol_operator_node_pods{backend,state}}: how many node pods each backend's DaemonSet
 * wants ({@code desired}: nodes it is scheduled on) and how many are ready, as its status last
 * said; a backend's series go with it. An alert compares the two.
 */
public final class NodePodsGauge {

  static final String NAME = "thinvol_operator_node_pods";

  private record Counts(int desired, int ready) {}

  private final Map<String, Counts> byBackend = new ConcurrentSkipListMap<>();

  /** Records the DaemonSet's status; one without a status yet (just made) records nothing. */
  public void record(String backend, Optional<DaemonSet> daemonSet) {
    daemonSet.map(DaemonSet::getStatus).ifPresent(status -> byBackend.put(backend, counts(status)));
  }

  public void forget(String backend) {
    byBackend.remove(backend);
  }

  private static Counts counts(DaemonSetStatus status) {
    return new Counts(orZero(status.getDesiredNumberScheduled()), orZero(status.getNumberReady()));
  }

  private static int orZero(Integer value) {
    return value == null ? 0 : value;
  }

  /** The Prometheus text exposition: one desired and one ready series per backend. */
  public String render() {
    StringBuilder out = new StringBuilder();
    out.append("# HELP ")
        .append(NAME)
        .append(" Node pods of each StorageBackend's DaemonSet: desired (nodes it runs on) and")
        .append(" ready.\n");
    out.append("# TYPE ").append(NAME).append(" gauge\n");
    byBackend.forEach(
        (backend, counts) -> {
          series(out, backend, "desired", counts.desired());
          series(out, backend, "ready", counts.ready());
        });
    return out.toString();
  }

  private static void series(StringBuilder out, String backend, String state, int value) {
    out.append(NAME)
        .append("{backend=\"")
        .append(backend)
        .append("\",state=\"")
        .append(state)
        .append("\"} ")
        .append(value)
        .append('\n');
  }
}
