package io.thinvol.operator.dependent;

import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.operator.model.Settings;
import io.thinvol.operator.model.VolumeSnapshotClass;
import io.thinvol.operator.model.VolumeSnapshotClassModel;

/**
 * The backend's VolumeSnapshotClass: only where the snapshot API exists ({@link SnapshotApi}), and
 * deleted again when the spec turns it off ({@link SnapshotClassesWanted}).
 */
@KubernetesDependent(informer = @Informer(labelSelector = Dependents.SELECTOR))
public class VolumeSnapshotClassDependent
    extends CRUDKubernetesDependentResource<VolumeSnapshotClass, StorageBackend> {

  public VolumeSnapshotClassDependent() {
    super(VolumeSnapshotClass.class);
  }

  @Override
  protected VolumeSnapshotClass desired(StorageBackend backend, Context<StorageBackend> context) {
    return VolumeSnapshotClassModel.desired(backend);
  }

  /** The cluster serves snapshot.storage.k8s.io: without it not even the informer may start. */
  public static class SnapshotApi extends ClusterServes {
    public SnapshotApi() {
      super(Settings::snapshotApi);
    }
  }
}
