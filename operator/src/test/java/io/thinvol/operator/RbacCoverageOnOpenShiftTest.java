package io.thinvol.operator;

import io.thinvol.operator.model.Settings;

/**
 * The same run on OpenShift (with the snapshot API and cluster monitoring's monitoring.coreos.com):
 * the node pods' binding to the privileged SCC comes and goes too, authorised by {@code bind} on
 * that one ClusterRole, and so do the monitoring objects, the Role for cluster monitoring's
 * Prometheus and the console's dashboard.
 */
class RbacCoverageOnOpenShiftTest extends RbacCoverageTest {

  @Override
  Settings settings() {
    return MonitoringDeploymentTest.servingMonitoring(true);
  }
}
