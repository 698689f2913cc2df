package io.thinvol.operator.dependent;

import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.dependent.DependentResource;
import io.javaoperatorsdk.operator.processing.dependent.workflow.Condition;
import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.operator.model.SnapshotMetadataModel;

/**
 * Activates the snapshot-metadata objects only where the cluster serves the snapshot API and
 * SnapshotMetadataServices: elsewhere not even their informers may start.
 */
public class SnapshotMetadataApi implements Condition<Object, StorageBackend> {

  @Override
  public boolean isMet(
      DependentResource<Object, StorageBackend> dependentResource,
      StorageBackend backend,
      Context<StorageBackend> context) {
    return SnapshotMetadataModel.deployed(Dependents.settings(context));
  }
}
