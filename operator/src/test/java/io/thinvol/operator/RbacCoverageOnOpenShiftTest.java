package io.thinvol.operator;

import io.thinvol.operator.model.Settings;

/**
 * The same run on OpenShift (with the snapshot API): the SecurityContextConstraints come and go
 * too.
 */
class RbacCoverageOnOpenShiftTest extends RbacCoverageTest {

  @Override
  Settings settings() {
    return new Settings(NAMESPACE, SETTINGS.operatorImage(), true, true);
  }
}
