package io.thinvol.operator.monitoring;

import io.thinvol.operator.model.Settings;
import java.util.List;

/**
 * The Prometheus Operator's API (monitoring.coreos.com/v1), which OpenShift's cluster monitoring
 * serves too. The operator makes its PodMonitors and PrometheusRules only where the cluster serves
 * both kinds: elsewhere nothing of it is created or watched.
 */
public final class MonitoringApi {

  public static final String GROUP = "monitoring.coreos.com";
  public static final String VERSION = "v1";
  public static final String API_VERSION = GROUP + "/" + VERSION;
  public static final String POD_MONITORS = "podmonitors";
  public static final String PROMETHEUS_RULES = "prometheusrules";

  /** The resources the operator uses: the API counts as served when it lists both. */
  public static final List<String> RESOURCES = List.of(POD_MONITORS, PROMETHEUS_RULES);

  private MonitoringApi() {}

  /** Whether the scrape objects and alert rules are made. */
  public static boolean deployed(Settings settings) {
    return settings.monitoringApi();
  }
}
