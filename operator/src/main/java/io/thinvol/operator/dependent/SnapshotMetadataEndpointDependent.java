package io.thinvol.operator.dependent;

import io.fabric8.kubernetes.api.model.Service;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Constants;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.operator.model.SnapshotMetadataModel;

/** The Service in front of the snapshot-metadata sidecars, which backup tools connect to. */
@KubernetesDependent(
    informer =
        @Informer(
            labelSelector = Dependents.SELECTOR,
            namespaces = Constants.WATCH_CURRENT_NAMESPACE))
public class SnapshotMetadataEndpointDependent
    extends CRUDKubernetesDependentResource<Service, StorageBackend> {

  public SnapshotMetadataEndpointDependent() {
    super(Service.class);
  }

  @Override
  protected Service desired(StorageBackend backend, Context<StorageBackend> context) {
    return SnapshotMetadataModel.service(backend, Dependents.settings(context));
  }
}
