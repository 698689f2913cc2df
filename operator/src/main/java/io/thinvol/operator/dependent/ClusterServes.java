package io.thinvol.operator.dependent;

import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.dependent.DependentResource;
import io.javaoperatorsdk.operator.processing.dependent.workflow.Condition;
import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.operator.model.Settings;
import java.util.function.Predicate;

/**
 * A dependent's activation condition on an API the cluster may not serve, as the operator's
 * settings (read at start) say: where it is not served, not even the dependent's informer may
 * start.
 */
public abstract class ClusterServes implements Condition<Object, StorageBackend> {

  private final Predicate<Settings> served;

  protected ClusterServes(Predicate<Settings> served) {
    this.served = served;
  }

  @Override
  public boolean isMet(
      DependentResource<Object, StorageBackend> dependentResource,
      StorageBackend backend,
      Context<StorageBackend> context) {
    return served.test(Dependents.settings(context));
  }
}
