package io.thinvol.operator.dependent;

import io.thinvol.operator.monitoring.MonitoringApi;

/**
 * Activates the PodMonitor and the PrometheusRule only where the cluster serves the Prometheus
 * Operator's API: elsewhere not even their informers may start.
 */
public class MonitoringApiServed extends ClusterServes {

  public MonitoringApiServed() {
    super(MonitoringApi::deployed);
  }
}
