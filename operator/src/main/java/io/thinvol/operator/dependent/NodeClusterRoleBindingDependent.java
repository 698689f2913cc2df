package io.thinvol.operator.dependent;

import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.operator.model.Names;
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

  /** Told apart from the privileged SCC's binding on OpenShift, which its informer sees too. */
  @Override
  protected ResourceID targetSecondaryResourceID(
      StorageBackend backend, Context<StorageBackend> context) {
    return new ResourceID(Names.nodeClusterRoleBinding(backend));
  }

  /**
   * A binding made by an older version refers to a ClusterRole of the backend's own; the API server
   * refuses to change a roleRef, so the binding is made again.
   */
  @Override
  public ClusterRoleBinding update(
      ClusterRoleBinding actual,
      ClusterRoleBinding desired,
      StorageBackend backend,
      Context<StorageBackend> context) {
    if (actual.getRoleRef().equals(desired.getRoleRef())) {
      return super.update(actual, desired, backend, context);
    }
    Dependents.deleteToRecreate(actual, context);
    return create(desired, backend, context);
  }
}
