package io.thinvol.operator.dependent;

import io.fabric8.kubernetes.api.model.rbac.Role;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Constants;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.operator.model.RbacModel;

/** The node pods' permissions in the operator's namespace. */
@KubernetesDependent(
    informer =
        @Informer(
            labelSelector = Dependents.SELECTOR,
            namespaces = Constants.WATCH_CURRENT_NAMESPACE))
public class NodeRoleDependent extends CRUDKubernetesDependentResource<Role, StorageBackend> {

  public NodeRoleDependent() {
    super(Role.class);
  }

  @Override
  protected Role desired(StorageBackend backend, Context<StorageBackend> context) {
    return RbacModel.role(backend, Dependents.settings(context));
  }
}
