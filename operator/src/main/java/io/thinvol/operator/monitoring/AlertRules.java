package io.thinvol.operator.monitoring;

import io.thinvol.api.v1alpha1.StorageBackend;
import java.util.List;
import java.util.Map;

/**
 * The alert rules of one StorageBackend, as the {@code groups} of a Prometheus rules file: the spec
 * of its PrometheusRule, and what {@code promtool test rules} checks.
 */
public final class AlertRules {

  private AlertRules() {}

  /** The rule groups for a backend's node pods, whose series carry {@code backend=<its name>}. */
  public static List<Map<String, Object>> groups(StorageBackend backend) {
    return List.of(
        Map.of("name", "thinvol-" + backend.getMetadata().getName(), "rules", List.of()));
  }

  /** The operator's and the reclaim alerts, shared by every backend. */
  public static List<Map<String, Object>> operatorGroups() {
    return List.of();
  }
}
