package io.thinvol.operator.dependent;

import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.dependent.DependentResource;
import io.javaoperatorsdk.operator.processing.dependent.workflow.Condition;
import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.operator.monitoring.MonitoringApi;

/**
 * Activates the PodMonitor and the PrometheusRule only where the cluster serves the Prometheus
 * Operator's API: elsewhere not even their informers may start.
 */
public class MonitoringApiServed implements Condition<Object, StorageBackend> {

  @Override
  public boolean isMet(
      DependentResource<Object, StorageBackend> dependentResource,
      StorageBackend backend,
      Context<StorageBackend> context) {
    return MonitoringApi.deployed(Dependents.settings(context));
  }
}
