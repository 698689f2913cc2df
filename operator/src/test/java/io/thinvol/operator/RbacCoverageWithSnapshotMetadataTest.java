package io.thinvol.operator;

import io.thinvol.operator.model.Settings;

/**
 * The same run where the cluster serves SnapshotMetadataServices: the sidecar's Secret, Service,
 * object and RBAC come and go too.
 */
class RbacCoverageWithSnapshotMetadataTest extends RbacCoverageTest {

  @Override
  Settings settings() {
    return new Settings(NAMESPACE, SETTINGS.operatorImage(), false, true)
        .withSnapshotMetadataApi(true);
  }
}
