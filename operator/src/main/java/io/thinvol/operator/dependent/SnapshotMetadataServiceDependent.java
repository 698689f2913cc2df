package io.thinvol.operator.dependent;

import io.fabric8.kubernetes.api.model.Secret;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.operator.model.Settings;
import io.thinvol.operator.model.SnapshotMetadataModel;
import io.thinvol.operator.model.SnapshotMetadataService;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Optional;

/**
 * The SnapshotMetadataService object named after the driver, which backup tools read to reach the
 * sidecars: it carries the certificate of the sidecars' Secret, read from the cluster.
 */
@KubernetesDependent(informer = @Informer(labelSelector = Dependents.SELECTOR))
public class SnapshotMetadataServiceDependent
    extends CRUDKubernetesDependentResource<SnapshotMetadataService, StorageBackend> {

  public SnapshotMetadataServiceDependent() {
    super(SnapshotMetadataService.class);
  }

  @Override
  protected SnapshotMetadataService desired(
      StorageBackend backend, Context<StorageBackend> context) {
    Settings settings = Dependents.settings(context);
    Secret secret =
        context
            .getClient()
            .secrets()
            .inNamespace(settings.namespace())
            .withName(SnapshotMetadataModel.TLS_SECRET)
            .get();
    if (secret == null) {
      throw new IllegalStateException(
          "the Secret " + SnapshotMetadataModel.TLS_SECRET + " is not there yet");
    }
    return SnapshotMetadataModel.object(backend, settings, certificate(secret));
  }

  /** The certificate as stored ({@code data}) or as just written ({@code stringData}). */
  private static String certificate(Secret secret) {
    return Optional.ofNullable(secret.getData())
        .map(data -> data.get("tls.crt"))
        .map(encoded -> new String(Base64.getDecoder().decode(encoded), StandardCharsets.US_ASCII))
        .or(() -> Optional.ofNullable(secret.getStringData()).map(data -> data.get("tls.crt")))
        .orElseThrow(
            () ->
                new IllegalStateException(
                    "the Secret " + secret.getMetadata().getName() + " holds no tls.crt"));
  }
}
