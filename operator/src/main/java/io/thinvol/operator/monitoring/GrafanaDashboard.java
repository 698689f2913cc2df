package io.thinvol.operator.monitoring;

/** The thinvol dashboard in Grafana's JSON model, as shipped in the operator's jar. */
public final class GrafanaDashboard {

  private static final String RESOURCE = "dashboard.json";

  private GrafanaDashboard() {}

  public static String json() {
    return MonitoringResources.text(RESOURCE);
  }
}
