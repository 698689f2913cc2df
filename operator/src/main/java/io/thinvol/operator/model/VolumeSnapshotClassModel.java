package io.thinvol.operator.model;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.thinvol.api.v1alpha1.StorageBackend;

/** The backend's VolumeSnapshotClass, named like its default StorageClass. */
public final class VolumeSnapshotClassModel {

  private VolumeSnapshotClassModel() {}

  public static VolumeSnapshotClass desired(StorageBackend backend) {
    return describe(new VolumeSnapshotClass(), backend);
  }

  /** Names a snapshot class like the backend's default StorageClass, for its driver. */
  static <T extends SnapshotClassObject> T describe(T snapshotClass, StorageBackend backend) {
    snapshotClass.setMetadata(
        new ObjectMetaBuilder()
            .withName(Names.defaultStorageClass(backend))
            .withLabels(Names.labels(backend))
            .build());
    snapshotClass.setDriver(backend.driverName());
    snapshotClass.setDeletionPolicy("Delete");
    return snapshotClass;
  }

  /** Whether the backend wants one; the cluster must also serve the snapshot API. */
  public static boolean wanted(StorageBackend backend) {
    return Effective.of(backend).volumeSnapshotClass();
  }
}
