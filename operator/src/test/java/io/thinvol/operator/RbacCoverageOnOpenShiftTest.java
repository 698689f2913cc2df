package io.thinvol.operator;

import io.thinvol.operator.model.Settings;

/**
 * The same run on OpenShift (with the snapshot API): the node pods' binding to the privileged SCC
 * comes and goes too, authorised by {@code bind} on that one ClusterRole.
 */
class RbacCoverageOnOpenShiftTest extends RbacCoverageTest {

  @Override
  Settings settings() {
    return new Settings(NAMESPACE, SETTINGS.operatorImage(), true, true);
  }
}
