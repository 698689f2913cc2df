package io.thinvol.operator;

import io.thinvol.operator.model.Settings;

/**
 * The same run where the cluster serves the Prometheus Operator's API: the backend's and the
 * operator's PodMonitors and PrometheusRules come and go.
 */
class RbacCoverageWithMonitoringTest extends RbacCoverageTest {

  @Override
  Settings settings() {
    return MonitoringDeploymentTest.servingMonitoring(false);
  }
}
