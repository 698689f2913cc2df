package io.thinvol.operator.dependent;

import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Constants;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.operator.monitoring.PodMonitor;
import io.thinvol.operator.monitoring.ScrapeModel;

/** The PodMonitor of the backend's node pods ({@link ScrapeModel#nodePods}). */
@KubernetesDependent(
    informer =
        @Informer(
            labelSelector = Dependents.SELECTOR,
            namespaces = Constants.WATCH_CURRENT_NAMESPACE))
public class NodePodMonitorDependent
    extends CRUDKubernetesDependentResource<PodMonitor, StorageBackend> {

  public NodePodMonitorDependent() {
    super(PodMonitor.class);
  }

  @Override
  protected PodMonitor desired(StorageBackend backend, Context<StorageBackend> context) {
    return ScrapeModel.nodePods(backend, Dependents.settings(context));
  }
}
