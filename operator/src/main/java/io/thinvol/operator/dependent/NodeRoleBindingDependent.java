package io.thinvol.operator.dependent;

import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Constants;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.operator.model.RbacModel;

/** Grants the namespace permissions to the node pods. */
@KubernetesDependent(
    informer =
        @Informer(
            labelSelector = Dependents.SELECTOR,
            namespaces = Constants.WATCH_CURRENT_NAMESPACE))
public class NodeRoleBindingDependent
    extends CRUDKubernetesDependentResource<RoleBinding, StorageBackend> {

  public NodeRoleBindingDependent() {
    super(RoleBinding.class);
  }

  @Override
  protected RoleBinding desired(StorageBackend backend, Context<StorageBackend> context) {
    return RbacModel.roleBinding(backend, Dependents.settings(context));
  }
}
