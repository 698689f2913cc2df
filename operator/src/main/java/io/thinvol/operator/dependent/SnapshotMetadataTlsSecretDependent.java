package io.thinvol.operator.dependent;

import io.fabric8.kubernetes.api.model.Secret;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Constants;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.dependent.GarbageCollected;
import io.javaoperatorsdk.operator.processing.dependent.Creator;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.operator.model.SnapshotMetadataModel;

/**
 * The TLS certificate and key of the snapshot-metadata sidecars. Created once and never updated by
 * a reconcile, like the addons certificate: a new one on every pass would roll every node.
 */
@KubernetesDependent(
    informer =
        @Informer(
            labelSelector = Dependents.SELECTOR,
            namespaces = Constants.WATCH_CURRENT_NAMESPACE))
public class SnapshotMetadataTlsSecretDependent
    extends KubernetesDependentResource<Secret, StorageBackend>
    implements Creator<Secret, StorageBackend>, GarbageCollected<StorageBackend> {

  public SnapshotMetadataTlsSecretDependent() {
    super(Secret.class);
  }

  @Override
  protected Secret desired(StorageBackend backend, Context<StorageBackend> context) {
    return SnapshotMetadataModel.tlsSecret(backend, Dependents.settings(context));
  }

  /** Told apart from the addons Secret by name, without making a key pair to learn it. */
  @Override
  protected ResourceID targetSecondaryResourceID(
      StorageBackend backend, Context<StorageBackend> context) {
    return new ResourceID(
        SnapshotMetadataModel.tlsSecretName(backend), Dependents.settings(context).namespace());
  }
}
