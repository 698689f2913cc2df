package io.thinvol.operator.dependent;

import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.operator.model.Names;
import io.thinvol.operator.model.Settings;

/** What every dependent shares: where the operator's settings are, and which objects are ours. */
public final class Dependents {

  /** Informers of owned objects see only these, not every ServiceAccount of the cluster. */
  public static final String SELECTOR = "app.kubernetes.io/managed-by=" + Names.MANAGED_BY;

  static final String SETTINGS = "thinvol.settings";

  private Dependents() {}

  /** Makes the operator's settings available to the dependents of this reconciliation. */
  public static void provide(Context<StorageBackend> context, Settings settings) {
    context.managedWorkflowAndDependentResourceContext().put(SETTINGS, settings);
  }

  static Settings settings(Context<StorageBackend> context) {
    return context
        .managedWorkflowAndDependentResourceContext()
        .getMandatory(SETTINGS, Settings.class);
  }
}
