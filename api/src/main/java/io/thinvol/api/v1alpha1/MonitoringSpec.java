package io.thinvol.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;

/**
 * Thresholds of the backend's alerts (docs/monitoring.md), for where an admin knows the disks
 * better than the defaults: a 20 TB data disk is still roomy at 90 %, a small one is not.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class MonitoringSpec {

  public static final int DEFAULT_WARNING_PERCENT = 75;
  public static final int DEFAULT_CRITICAL_PERCENT = 90;
  public static final int DEFAULT_FILL_PREDICTION_HOURS = 24;
  public static final int DEFAULT_PROMISED_PERCENT = 90;
  public static final int MAX_DATA_DIR_PERCENT = 99;
  public static final int MAX_FILL_PREDICTION_HOURS = 168;

  /** The CEL rule on the parent field that keeps the two usage thresholds in order. */
  public static final String ORDER_RULE =
      "!has(self.dataDirWarningPercent) || !has(self.dataDirCriticalPercent)"
          + " || self.dataDirWarningPercent < self.dataDirCriticalPercent";

  public static final String ORDER_MESSAGE =
      "dataDirWarningPercent must be below dataDirCriticalPercent";

  @JsonPropertyDescription(
      "A node's data dir filesystem used above this percentage of its size fires the warning"
          + " alert ThinvolDataDirUsageHigh.")
  @Default("75")
  @Min(1)
  @Max(MAX_DATA_DIR_PERCENT)
  private Integer dataDirWarningPercent;

  @JsonPropertyDescription(
      "A node's data dir filesystem used above this percentage of its size fires the critical"
          + " alert ThinvolDataDirUsageCritical. Above dataDirWarningPercent.")
  @Default("90")
  @Min(1)
  @Max(MAX_DATA_DIR_PERCENT)
  private Integer dataDirCriticalPercent;

  @JsonPropertyDescription(
      "A node's data dir predicted, from its last 6 hours, to fill within this many hours fires"
          + " ThinvolDataDirFillingUp.")
  @Default("24")
  @Min(1)
  @Max(MAX_FILL_PREDICTION_HOURS)
  private Integer fillPredictionHours;

  @JsonPropertyDescription(
      "A node whose volumes were promised more than this percentage of what the"
          + " overprovisionRatio lets it promise fires ThinvolPromisedCapacityNearLimit: new"
          + " volumes will soon be refused there.")
  @Default("90")
  @Min(1)
  @Max(100)
  private Integer promisedCapacityWarningPercent;

  public Integer getDataDirWarningPercent() {
    return dataDirWarningPercent;
  }

  public void setDataDirWarningPercent(Integer dataDirWarningPercent) {
    this.dataDirWarningPercent = dataDirWarningPercent;
  }

  public Integer getDataDirCriticalPercent() {
    return dataDirCriticalPercent;
  }

  public void setDataDirCriticalPercent(Integer dataDirCriticalPercent) {
    this.dataDirCriticalPercent = dataDirCriticalPercent;
  }

  public Integer getFillPredictionHours() {
    return fillPredictionHours;
  }

  public void setFillPredictionHours(Integer fillPredictionHours) {
    this.fillPredictionHours = fillPredictionHours;
  }

  public Integer getPromisedCapacityWarningPercent() {
    return promisedCapacityWarningPercent;
  }

  public void setPromisedCapacityWarningPercent(Integer promisedCapacityWarningPercent) {
    this.promisedCapacityWarningPercent = promisedCapacityWarningPercent;
  }
}
