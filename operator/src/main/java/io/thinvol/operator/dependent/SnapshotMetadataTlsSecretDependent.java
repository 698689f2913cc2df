package io.thinvol.operator.dependent;

import io.javaoperatorsdk.operator.api.config.informer.Field;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Constants;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import io.thinvol.operator.model.SelfSignedCertificate;
import io.thinvol.operator.model.SnapshotMetadataModel;

/**
 * The TLS certificate and key of the snapshot-metadata sidecars, one for every backend (each
 * backend's SnapshotMetadataService names it as the CA of its own Service's address).
 */
@KubernetesDependent(
    informer =
        @Informer(
            fieldSelector =
                @Field(path = "metadata.name", value = SnapshotMetadataModel.TLS_SECRET),
            namespaces = Constants.WATCH_CURRENT_NAMESPACE))
public class SnapshotMetadataTlsSecretDependent extends SharedTlsSecretDependent {

  public SnapshotMetadataTlsSecretDependent() {
    super(SnapshotMetadataModel.TLS_SECRET);
  }

  @Override
  SelfSignedCertificate certificate(String namespace) {
    return SnapshotMetadataModel.certificate(namespace);
  }
}
