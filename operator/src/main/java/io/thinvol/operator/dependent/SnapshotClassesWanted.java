package io.thinvol.operator.dependent;

import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.dependent.DependentResource;
import io.javaoperatorsdk.operator.processing.dependent.workflow.Condition;
import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.operator.model.VolumeSnapshotClassModel;

/**
 * The spec asks for snapshot classes: the VolumeSnapshotClass and the VolumeGroupSnapshotClass are
 * made, and deleted again when it turns them off.
 */
public class SnapshotClassesWanted implements Condition<Object, StorageBackend> {

  @Override
  public boolean isMet(
      DependentResource<Object, StorageBackend> dependentResource,
      StorageBackend backend,
      Context<StorageBackend> context) {
    return VolumeSnapshotClassModel.wanted(backend);
  }
}
