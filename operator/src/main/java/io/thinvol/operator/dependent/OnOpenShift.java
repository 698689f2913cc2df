package io.thinvol.operator.dependent;

import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.dependent.DependentResource;
import io.javaoperatorsdk.operator.processing.dependent.workflow.Condition;
import io.thinvol.api.v1alpha1.StorageBackend;

/**
 * Activates a dependent only on OpenShift: elsewhere its API does not exist, so not even its
 * informer may start.
 */
public class OnOpenShift implements Condition<Object, StorageBackend> {

  @Override
  public boolean isMet(
      DependentResource<Object, StorageBackend> dependentResource,
      StorageBackend backend,
      Context<StorageBackend> context) {
    return Dependents.settings(context).openShift();
  }
}
