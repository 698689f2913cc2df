package io.thinvol.operator.kinds;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.javaoperatorsdk.operator.Operator;
import io.javaoperatorsdk.operator.api.config.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.config.ResolvedControllerConfiguration;
import io.javaoperatorsdk.operator.api.config.informer.FieldSelector;
import io.javaoperatorsdk.operator.api.config.informer.InformerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import java.time.Duration;
import java.util.Map;

/**
 * Watches one missing CRD, by name (its watch holds that object only; the operator may read no
 * other CRD), and has the {@link OptionalKinds} start what waits for it once it is served. Runs in
 * the leader only, as every controller of the operator. A CRD is served once it is Established;
 * discovery may list it a moment later, so an Established CRD not listed yet is looked at again
 * shortly.
 */
@io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration(
    generationAwareEventProcessing = false)
final class CrdAppearance implements Reconciler<CustomResourceDefinition> {

  static final Duration DISCOVERY_LAG = Duration.ofSeconds(1);

  private final OptionalKinds kinds;

  private CrdAppearance(OptionalKinds kinds) {
    this.kinds = kinds;
  }

  /** Registers with {@code operator} a controller of the CRD named {@code crd}. */
  static void register(Operator operator, String crd, OptionalKinds kinds) {
    CrdAppearance reconciler = new CrdAppearance(kinds);
    ControllerConfiguration<CustomResourceDefinition> defaults =
        operator.getConfigurationService().getConfigurationFor(reconciler);
    InformerConfiguration<CustomResourceDefinition> oneCrd =
        InformerConfiguration.builder(defaults.getInformerConfig())
            .withFieldSelector(new FieldSelector(new FieldSelector.Field("metadata.name", crd)))
            .buildForController();
    operator.register(
        reconciler,
        new ResolvedControllerConfiguration<>(
            "awaiting-" + crd,
            false,
            defaults.getAssociatedReconcilerClassName(),
            defaults.getRetry(),
            defaults.getRateLimiter(),
            null,
            defaults.getFinalizerName(),
            Map.of(),
            defaults.fieldManager(),
            defaults.getConfigurationService(),
            oneCrd,
            false,
            null));
  }

  @Override
  public UpdateControl<CustomResourceDefinition> reconcile(
      CustomResourceDefinition crd, Context<CustomResourceDefinition> context) {
    kinds.startServed();
    UpdateControl<CustomResourceDefinition> control = UpdateControl.noUpdate();
    return established(crd) && kinds.waitsFor(crd.getMetadata().getName())
        ? control.rescheduleAfter(DISCOVERY_LAG)
        : control;
  }

  private static boolean established(CustomResourceDefinition crd) {
    return crd.getStatus() != null
        && crd.getStatus().getConditions() != null
        && crd.getStatus().getConditions().stream()
            .anyMatch(c -> "Established".equals(c.getType()) && "True".equals(c.getStatus()));
  }
}
