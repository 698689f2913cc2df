package io.thinvol.operator.dependent;

import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.operator.model.RbacModel;

/** Grants the cluster permissions to the node pods. */
@KubernetesDependent(informer = @Informer(labelSelector = Dependents.SELECTOR))
public class NodeClusterRoleBindingDependent
    extends CRUDKubernetesDependentResource<ClusterRoleBinding, StorageBackend> {

  public NodeClusterRoleBindingDependent() {
    super(ClusterRoleBinding.class);
  }

  @Override
  protected ClusterRoleBinding desired(StorageBackend backend, Context<StorageBackend> context) {
    return RbacModel.clusterRoleBinding(backend, Dependents.settings(context));
  }
}
