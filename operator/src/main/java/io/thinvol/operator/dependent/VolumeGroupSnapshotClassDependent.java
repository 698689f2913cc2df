package io.thinvol.operator.dependent;

import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.operator.model.GroupSnapshotModel;
import io.thinvol.operator.model.VolumeGroupSnapshotClass;

/**
 * The backend's VolumeGroupSnapshotClass: only where the group snapshot API exists ({@link
 * GroupSnapshotApi}), and, like the VolumeSnapshotClass, deleted again when the spec turns snapshot
 * classes off ({@link SnapshotClassesWanted}).
 */
@KubernetesDependent(informer = @Informer(labelSelector = Dependents.SELECTOR))
public class VolumeGroupSnapshotClassDependent
    extends CRUDKubernetesDependentResource<VolumeGroupSnapshotClass, StorageBackend> {

  public VolumeGroupSnapshotClassDependent() {
    super(VolumeGroupSnapshotClass.class);
  }

  @Override
  protected VolumeGroupSnapshotClass desired(
      StorageBackend backend, Context<StorageBackend> context) {
    return GroupSnapshotModel.desiredClass(backend);
  }

  /**
   * The cluster serves groupsnapshot.storage.k8s.io: without it not even the informer may start.
   */
  public static class GroupSnapshotApi extends ClusterServes {
    public GroupSnapshotApi() {
      super(GroupSnapshotModel::deployed);
    }
  }
}
