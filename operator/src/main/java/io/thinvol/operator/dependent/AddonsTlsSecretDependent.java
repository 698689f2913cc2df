package io.thinvol.operator.dependent;

import io.javaoperatorsdk.operator.api.config.informer.Field;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Constants;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import io.thinvol.api.BackendNames;
import io.thinvol.operator.model.SelfSignedCertificate;
import java.time.Duration;
import java.util.List;

/**
 * The TLS certificate and key of the drivers' CSI-Addons port, one for every backend: the drivers
 * present it, the addons and the drivers' peers trust it and verify its one DNS name.
 */
@KubernetesDependent(
    informer =
        @Informer(
            fieldSelector = @Field(path = "metadata.name", value = BackendNames.ADDONS_TLS_SECRET),
            namespaces = Constants.WATCH_CURRENT_NAMESPACE))
public class AddonsTlsSecretDependent extends SharedTlsSecretDependent {

  static final Duration VALIDITY = Duration.ofDays(3650);

  public AddonsTlsSecretDependent() {
    super(BackendNames.ADDONS_TLS_SECRET);
  }

  @Override
  SelfSignedCertificate certificate(String namespace) {
    // The drivers' peers verify the first DNS name (the only one).
    String serverName = BackendNames.addonsServerName(namespace);
    return SelfSignedCertificate.create(serverName, List.of(serverName), VALIDITY);
  }
}
