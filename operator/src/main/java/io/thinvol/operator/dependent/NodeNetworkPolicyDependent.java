package io.thinvol.operator.dependent;

import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Constants;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.operator.model.NetworkPolicyModel;

/** Admits the node pods' CSI-Addons port from the operator's pods only. */
@KubernetesDependent(
    informer =
        @Informer(
            labelSelector = Dependents.SELECTOR,
            namespaces = Constants.WATCH_CURRENT_NAMESPACE))
public class NodeNetworkPolicyDependent
    extends CRUDKubernetesDependentResource<NetworkPolicy, StorageBackend> {

  public NodeNetworkPolicyDependent() {
    super(NetworkPolicy.class);
  }

  @Override
  protected NetworkPolicy desired(StorageBackend backend, Context<StorageBackend> context) {
    return NetworkPolicyModel.desired(backend, Dependents.settings(context));
  }
}
