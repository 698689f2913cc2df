package io.thinvol.operator.dependent;

import io.fabric8.kubernetes.api.model.storage.CSIDriver;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.operator.model.CsiDriverModel;

/**
 * The CSIDriver object of the backend. attachRequired and volumeLifecycleModes cannot be updated:
 * when they differ (an object left by another version) it is deleted and created again, which does
 * not touch existing volumes.
 */
@KubernetesDependent(informer = @Informer(labelSelector = Dependents.SELECTOR))
public class CsiDriverDependent extends RecreatedOnChangeDependent<CSIDriver> {

  public CsiDriverDependent() {
    super(CSIDriver.class);
  }

  @Override
  protected CSIDriver desired(StorageBackend backend, Context<StorageBackend> context) {
    return CsiDriverModel.desired(backend);
  }

  @Override
  protected boolean needsRecreate(CSIDriver actual, CSIDriver desired) {
    return CsiDriverModel.needsRecreate(actual, desired);
  }
}
