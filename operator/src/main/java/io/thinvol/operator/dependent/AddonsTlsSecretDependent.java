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
import io.thinvol.api.BackendNames;
import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.operator.model.Names;
import io.thinvol.operator.model.SelfSignedCertificate;
import io.thinvol.operator.model.Settings;
import java.time.Duration;
import java.util.List;

/**
 * The TLS certificate and key of the driver's CSI-Addons port. Created once and never updated by a
 * reconcile: a new certificate on every pass would roll every node.
 */
@KubernetesDependent(
    informer =
        @Informer(
            labelSelector = Dependents.SELECTOR,
            namespaces = Constants.WATCH_CURRENT_NAMESPACE))
public class AddonsTlsSecretDependent extends KubernetesDependentResource<Secret, StorageBackend>
    implements Creator<Secret, StorageBackend>, GarbageCollected<StorageBackend> {

  static final Duration VALIDITY = Duration.ofDays(3650);

  public AddonsTlsSecretDependent() {
    super(Secret.class);
  }

  @Override
  protected Secret desired(StorageBackend backend, Context<StorageBackend> context) {
    Settings settings = Dependents.settings(context);
    String service =
        BackendNames.addonsServerName(backend.getMetadata().getName(), settings.namespace());
    SelfSignedCertificate certificate =
        SelfSignedCertificate.create(
            Names.driver(backend), List.of(service, Names.driver(backend)), VALIDITY);
    return certificate.tlsSecret(
        Names.addonsTlsSecret(backend), settings.namespace(), Names.labels(backend));
  }

  /** Told apart from other Secrets by name, without making a key pair to learn it. */
  @Override
  protected ResourceID targetSecondaryResourceID(
      StorageBackend backend, Context<StorageBackend> context) {
    return new ResourceID(Names.addonsTlsSecret(backend), Dependents.settings(context).namespace());
  }
}
