package io.thinvol.operator.dependent;

import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.operator.model.RbacModel;

/** The node pods' cluster permissions. */
@KubernetesDependent(informer = @Informer(labelSelector = Dependents.SELECTOR))
public class NodeClusterRoleDependent
    extends CRUDKubernetesDependentResource<ClusterRole, StorageBackend> {

  public NodeClusterRoleDependent() {
    super(ClusterRole.class);
  }

  @Override
  protected ClusterRole desired(StorageBackend backend, Context<StorageBackend> context) {
    return RbacModel.clusterRole(backend, Dependents.settings(context));
  }
}
