package io.thinvol.operator.monitoring;

import io.fabric8.kubernetes.client.utils.Serialization;
import io.thinvol.api.v1alpha1.StorageBackend;
import java.util.List;
import java.util.Map;

/**
 * The alert rules of one StorageBackend, as the {@code groups} of a Prometheus rules file: the spec
 * of its PrometheusRule, and what {@code promtool test rules} checks. The rules live as YAML in the
 * jar (node-alerts.yaml, operator-alerts.yaml); this fills in the backend and its thresholds.
 */
public final class AlertRules {

  /** Where every alert's runbook_url points: a section of docs/monitoring.md per alert. */
  public static final String RUNBOOKS =
      "https://github.com/thinvol/thinvol/blob/main/docs/monitoring.md";

  // The operator's alerts are one set for the cluster, so their thresholds are fixed here.
  static final double RECONCILE_FAILURE_RATIO = 0.5;
  static final int RECLAIM_FAILURES = 3;
  static final int SCHEDULE_LATE_HOURS = 1;

  private AlertRules() {}

  /** The rule groups for a backend's node pods, whose series carry {@code backend=<its name>}. */
  public static List<Map<String, Object>> groups(StorageBackend backend) {
    AlertThresholds thresholds = AlertThresholds.of(backend);
    return parse(
        RulesTemplate.render(
            MonitoringResources.text("node-alerts.yaml"),
            Map.of(
                "backend", backend.getMetadata().getName(),
                "warningPercent", Integer.toString(thresholds.warningPercent()),
                "criticalPercent", Integer.toString(thresholds.criticalPercent()),
                "fillPredictionHours", Integer.toString(thresholds.fillPredictionHours()),
                "fillPredictionSeconds", Integer.toString(thresholds.fillPredictionHours() * 3600),
                "promisedPercent", Integer.toString(thresholds.promisedPercent()),
                "runbookBase", RUNBOOKS)));
  }

  /** The operator's and the space reclamation's rule groups, one set for the whole cluster. */
  public static List<Map<String, Object>> operatorGroups() {
    return parse(
        RulesTemplate.render(
            MonitoringResources.text("operator-alerts.yaml"),
            Map.of(
                "reconcileFailureRatio", Double.toString(RECONCILE_FAILURE_RATIO),
                "reclaimFailures", Integer.toString(RECLAIM_FAILURES),
                "scheduleLateHours", Integer.toString(SCHEDULE_LATE_HOURS),
                "scheduleLateSeconds", Integer.toString(SCHEDULE_LATE_HOURS * 3600),
                "runbookBase", RUNBOOKS)));
  }

  @SuppressWarnings("unchecked")
  private static List<Map<String, Object>> parse(String rulesFile) {
    Map<String, Object> file = Serialization.unmarshal(rulesFile, Map.class);
    return (List<Map<String, Object>>) file.get("groups");
  }
}
