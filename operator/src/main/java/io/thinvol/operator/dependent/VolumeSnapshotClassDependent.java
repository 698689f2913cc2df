package io.thinvol.operator.dependent;

import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.dependent.DependentResource;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import io.javaoperatorsdk.operator.processing.dependent.workflow.Condition;
import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.operator.model.VolumeSnapshotClass;
import io.thinvol.operator.model.VolumeSnapshotClassModel;

/**
 * The backend's VolumeSnapshotClass: only where the snapshot API exists ({@link SnapshotApi}), and
 * deleted again when the spec turns it off ({@link Wanted}).
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
  public static class SnapshotApi implements Condition<VolumeSnapshotClass, StorageBackend> {
    @Override
    public boolean isMet(
        DependentResource<VolumeSnapshotClass, StorageBackend> dependentResource,
        StorageBackend backend,
        Context<StorageBackend> context) {
      return Dependents.settings(context).snapshotApi();
    }
  }

  /** The spec asks for one. */
  public static class Wanted implements Condition<VolumeSnapshotClass, StorageBackend> {
    @Override
    public boolean isMet(
        DependentResource<VolumeSnapshotClass, StorageBackend> dependentResource,
        StorageBackend backend,
        Context<StorageBackend> context) {
      return VolumeSnapshotClassModel.wanted(backend);
    }
  }
}
