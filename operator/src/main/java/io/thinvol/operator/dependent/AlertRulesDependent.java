package io.thinvol.operator.dependent;

import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Constants;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.operator.monitoring.AlertRulesModel;
import io.thinvol.operator.monitoring.PrometheusRule;

/** The PrometheusRule of the backend's node alerts ({@link AlertRulesModel#backend}). */
@KubernetesDependent(
    informer =
        @Informer(
            labelSelector = Dependents.SELECTOR,
            namespaces = Constants.WATCH_CURRENT_NAMESPACE))
public class AlertRulesDependent
    extends CRUDKubernetesDependentResource<PrometheusRule, StorageBackend> {

  public AlertRulesDependent() {
    super(PrometheusRule.class);
  }

  @Override
  protected PrometheusRule desired(StorageBackend backend, Context<StorageBackend> context) {
    return AlertRulesModel.backend(backend, Dependents.settings(context));
  }
}
