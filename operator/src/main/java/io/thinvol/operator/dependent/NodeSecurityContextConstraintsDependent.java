package io.thinvol.operator.dependent;

import io.fabric8.openshift.api.model.SecurityContextConstraints;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.operator.model.SecurityContextConstraintsModel;

/** The node pods' SecurityContextConstraints; only on OpenShift (see {@link OnOpenShift}). */
@KubernetesDependent(informer = @Informer(labelSelector = Dependents.SELECTOR))
public class NodeSecurityContextConstraintsDependent
    extends CRUDKubernetesDependentResource<SecurityContextConstraints, StorageBackend> {

  public NodeSecurityContextConstraintsDependent() {
    super(SecurityContextConstraints.class);
  }

  @Override
  protected SecurityContextConstraints desired(
      StorageBackend backend, Context<StorageBackend> context) {
    return SecurityContextConstraintsModel.desired(backend, Dependents.settings(context));
  }
}
