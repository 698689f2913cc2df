package io.thinvol.operator.dependent;

import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Constants;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.operator.model.NodeDaemonSetModel;

/** The node plugin DaemonSet. */
@KubernetesDependent(
    informer =
        @Informer(
            labelSelector = Dependents.SELECTOR,
            namespaces = Constants.WATCH_CURRENT_NAMESPACE))
public class NodeDaemonSetDependent
    extends CRUDKubernetesDependentResource<DaemonSet, StorageBackend> {

  public NodeDaemonSetDependent() {
    super(DaemonSet.class);
  }

  @Override
  protected DaemonSet desired(StorageBackend backend, Context<StorageBackend> context) {
    return NodeDaemonSetModel.desired(
        backend, Dependents.settings(context), Dependents.settings(context).snapshotApi());
  }
}
