package io.thinvol.operator;

import io.thinvol.operator.model.Settings;

/**
 * The same run where the cluster serves group snapshots: the VolumeGroupSnapshotClass comes and
 * goes, and the operator grants the snapshotter its group snapshot rules.
 */
class RbacCoverageWithGroupSnapshotsTest extends RbacCoverageTest {

  @Override
  Settings settings() {
    return GroupSnapshotDeploymentTest.servingGroupSnapshots();
  }
}
