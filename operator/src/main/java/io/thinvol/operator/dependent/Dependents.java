package io.thinvol.operator.dependent;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.operator.model.Names;
import io.thinvol.operator.model.Settings;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** What every dependent shares: where the operator's settings are, and which objects are ours. */
public final class Dependents {

  /** Informers of owned objects see only these, not every ServiceAccount of the cluster. */
  public static final String SELECTOR = "app.kubernetes.io/managed-by=" + Names.MANAGED_BY;

  static final String SETTINGS = "thinvol.settings";

  private static final Logger log = LoggerFactory.getLogger(Dependents.class);

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

  /**
   * Deletes {@code actual} and waits until it is gone, so that it can be created again with a field
   * the API server refuses to update.
   */
  static void deleteToRecreate(HasMetadata actual, Context<StorageBackend> context) {
    log.info(
        "recreating {} {}: a field that cannot be updated differs",
        actual.getKind(),
        actual.getMetadata().getName());
    context.getClient().resource(actual).withTimeoutInMillis(30_000).delete();
  }
}
