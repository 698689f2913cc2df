package io.thinvol.operator.dependent;

import io.thinvol.operator.model.SnapshotMetadataModel;

/**
 * Activates the snapshot-metadata objects only where the cluster serves the snapshot API and
 * SnapshotMetadataServices: elsewhere not even their informers may start.
 */
public class SnapshotMetadataApi extends ClusterServes {

  public SnapshotMetadataApi() {
    super(SnapshotMetadataModel::deployed);
  }
}
