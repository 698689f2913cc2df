package io.thinvol.operator.dependent;

import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.operator.model.Names;
import io.thinvol.operator.model.PrivilegedSccModel;

/**
 * Lets the node pods use OpenShift's privileged SCC; only on OpenShift (see {@link OnOpenShift}).
 */
@KubernetesDependent(informer = @Informer(labelSelector = Dependents.SELECTOR))
public class NodePrivilegedSccBindingDependent
    extends CRUDKubernetesDependentResource<ClusterRoleBinding, StorageBackend> {

  public NodePrivilegedSccBindingDependent() {
    super(ClusterRoleBinding.class);
  }

  @Override
  protected ClusterRoleBinding desired(StorageBackend backend, Context<StorageBackend> context) {
    return PrivilegedSccModel.binding(backend, Dependents.settings(context));
  }

  /** Told apart from the node rules' binding, which its informer sees too, by name. */
  @Override
  protected ResourceID targetSecondaryResourceID(
      StorageBackend backend, Context<StorageBackend> context) {
    return new ResourceID(Names.nodePrivilegedSccBinding(backend));
  }
}
