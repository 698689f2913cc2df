package io.thinvol.operator.monitoring;

import io.thinvol.api.v1alpha1.MonitoringSpec;
import io.thinvol.api.v1alpha1.StorageBackend;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A backend's alert thresholds (spec.monitoring) with the defaults applied: the CRD fills them only
 * where spec.monitoring is present.
 */
public record AlertThresholds(
    int warningPercent, int criticalPercent, int fillPredictionHours, int promisedPercent) {

  public static final AlertThresholds DEFAULTS =
      new AlertThresholds(
          MonitoringSpec.DEFAULT_WARNING_PERCENT,
          MonitoringSpec.DEFAULT_CRITICAL_PERCENT,
          MonitoringSpec.DEFAULT_FILL_PREDICTION_HOURS,
          MonitoringSpec.DEFAULT_PROMISED_PERCENT);

  public static AlertThresholds of(StorageBackend backend) {
    MonitoringSpec spec =
        Optional.ofNullable(backend.getSpec())
            .map(s -> s.getMonitoring())
            .orElseGet(MonitoringSpec::new);
    return new AlertThresholds(
        or(spec.getDataDirWarningPercent(), DEFAULTS.warningPercent),
        or(spec.getDataDirCriticalPercent(), DEFAULTS.criticalPercent),
        or(spec.getFillPredictionHours(), DEFAULTS.fillPredictionHours),
        or(spec.getPromisedCapacityWarningPercent(), DEFAULTS.promisedPercent));
  }

  /**
   * What the CRD schema refuses, in sentences, for API servers that do not apply it (and objects
   * stored before the fields existed).
   */
  public List<String> problems() {
    List<String> problems = new ArrayList<>();
    inRange(
        "dataDirWarningPercent", warningPercent, 1, MonitoringSpec.MAX_DATA_DIR_PERCENT, problems);
    inRange(
        "dataDirCriticalPercent",
        criticalPercent,
        1,
        MonitoringSpec.MAX_DATA_DIR_PERCENT,
        problems);
    inRange(
        "fillPredictionHours",
        fillPredictionHours,
        1,
        MonitoringSpec.MAX_FILL_PREDICTION_HOURS,
        problems);
    inRange("promisedCapacityWarningPercent", promisedPercent, 1, 100, problems);
    if (warningPercent >= criticalPercent) {
      problems.add("spec.monitoring." + MonitoringSpec.ORDER_MESSAGE);
    }
    return problems;
  }

  private static void inRange(String field, int value, int min, int max, List<String> problems) {
    if (value < min || value > max) {
      problems.add(
          "spec.monitoring." + field + " must be from " + min + " to " + max + ", not " + value);
    }
  }

  private static int or(Integer value, int fallback) {
    return value == null ? fallback : value;
  }
}
