package io.thinvol.operator.dependent;

import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.dependent.DependentResource;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import io.javaoperatorsdk.operator.processing.dependent.workflow.Condition;
import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.operator.model.GroupSnapshotModel;
import io.thinvol.operator.model.VolumeGroupSnapshotClass;
import io.thinvol.operator.model.VolumeSnapshotClassModel;

/**
 * The backend's VolumeGroupSnapshotClass: only where the group snapshot API exists ({@link
 * GroupSnapshotApi}), and, like the VolumeSnapshotClass, deleted again when the spec turns snapshot
 * classes off ({@link Wanted}).
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
  public static class GroupSnapshotApi
      implements Condition<VolumeGroupSnapshotClass, StorageBackend> {
    @Override
    public boolean isMet(
        DependentResource<VolumeGroupSnapshotClass, StorageBackend> dependentResource,
        StorageBackend backend,
        Context<StorageBackend> context) {
      return GroupSnapshotModel.deployed(Dependents.settings(context));
    }
  }

  /** The spec asks for snapshot classes. */
  public static class Wanted implements Condition<VolumeGroupSnapshotClass, StorageBackend> {
    @Override
    public boolean isMet(
        DependentResource<VolumeGroupSnapshotClass, StorageBackend> dependentResource,
        StorageBackend backend,
        Context<StorageBackend> context) {
      return VolumeSnapshotClassModel.wanted(backend);
    }
  }
}
