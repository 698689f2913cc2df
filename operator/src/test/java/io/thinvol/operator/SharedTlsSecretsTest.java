package io.thinvol.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.thinvol.api.BackendNames;
import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.operator.model.Names;
import io.thinvol.operator.model.Settings;
import io.thinvol.operator.model.SnapshotMetadataModel;
import io.thinvol.operator.model.SnapshotMetadataService;
import io.thinvol.testing.ApiRequest;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Every backend's node pods mount the same two TLS Secrets, which the operator reaches by name only
 * (RBAC names them): created once, owned by no backend, made again when deleted.
 */
class SharedTlsSecretsTest extends MockClusterTest {

  private static final List<String> SHARED =
      List.of(BackendNames.ADDONS_TLS_SECRET, SnapshotMetadataModel.TLS_SECRET);

  @Override
  Settings settings() {
    return new Settings(NAMESPACE, SETTINGS.operatorImage(), false, true)
        .withSnapshotMetadataApi(true);
  }

  @Test
  @DisplayName("Two backends share the TLS Secrets; every Secret request but create names one")
  void oneCertificateForEveryBackendReachedByName() throws Exception {
    apply("metadata:\n  name: alpha\n");
    apply("metadata:\n  name: beta\nspec:\n  storageClasses:\n  - name: beta\n");
    for (String backend : List.of("alpha", "beta")) {
      DaemonSet node = namespaced(DaemonSet.class, BackendNames.nodeDaemonSet(backend));
      assertThat(node.getSpec().getTemplate().getSpec().getVolumes())
          .extracting(Volume::getSecret)
          .filteredOn(secret -> secret != null)
          .extracting(secret -> secret.getSecretName())
          .containsExactlyInAnyOrderElementsOf(SHARED);
    }
    Secret addons = namespaced(Secret.class, BackendNames.ADDONS_TLS_SECRET);
    assertThat(addons.getMetadata().getOwnerReferences()).as("owned by no backend").isEmpty();
    assertThat(addons.getMetadata().getLabels()).doesNotContainKey(Names.BACKEND_LABEL);
    assertThat(certificate(addons).getSubjectAlternativeNames())
        .as("the one name the addons and the drivers' peers verify")
        .containsExactly(List.of(2, BackendNames.addonsServerName(NAMESPACE)));
    String snapshotCa =
        Base64.getEncoder()
            .encodeToString(
                pem(namespaced(Secret.class, SnapshotMetadataModel.TLS_SECRET))
                    .getBytes(StandardCharsets.US_ASCII));
    for (String driver : List.of("alpha.thinvol.io", "beta.thinvol.io")) {
      assertThat(clusterScoped(SnapshotMetadataService.class, driver).getSpec().caCert())
          .isEqualTo(snapshotCa);
    }

    String first = pem(addons);
    client.secrets().inNamespace(NAMESPACE).withName(BackendNames.ADDONS_TLS_SECRET).delete();
    String renewed =
        await(
            "the deleted Secret made again",
            () -> {
              Secret now =
                  client
                      .secrets()
                      .inNamespace(NAMESPACE)
                      .withName(BackendNames.ADDONS_TLS_SECRET)
                      .get();
              return now == null || pem(now).equals(first) ? null : pem(now);
            });

    for (String backend : List.of("alpha", "beta")) {
      assertThat(eventReasons(backend))
          .as("a Secret the other backend made first (409) is no failure")
          .doesNotContain("Conflict");
    }

    for (String backend : List.of("alpha", "beta")) {
      client.resources(StorageBackend.class).withName(backend).delete();
      await(
          backend + " gone",
          () -> client.resources(StorageBackend.class).withName(backend).get() == null);
    }
    assertThat(pem(namespaced(Secret.class, BackendNames.ADDONS_TLS_SECRET)))
        .as("outlives the backends, untouched")
        .isEqualTo(renewed);
    namespaced(Secret.class, SnapshotMetadataModel.TLS_SECRET);

    assertThat(operatorDecisions())
        .extracting(d -> d.request())
        .filteredOn(r -> r.resource().equals("secrets"))
        .as("every Secret request but create names a shared Secret")
        .allSatisfy(
            r -> {
              assertThat(r.namespace()).isEqualTo(NAMESPACE);
              if (!r.verb().equals("create")) {
                assertThat(r.name()).isIn(SHARED);
              }
            })
        .extracting(ApiRequest::verb)
        .contains("create", "list", "watch", "get")
        .doesNotContain("update", "delete", "deletecollection");
  }

  private static String pem(Secret secret) {
    if (secret.getData() != null && secret.getData().containsKey("tls.crt")) {
      return new String(Base64.getDecoder().decode(secret.getData().get("tls.crt")));
    }
    return secret.getStringData().get("tls.crt");
  }

  private static X509Certificate certificate(Secret secret) throws Exception {
    return (X509Certificate)
        CertificateFactory.getInstance("X.509")
            .generateCertificate(
                new ByteArrayInputStream(pem(secret).getBytes(StandardCharsets.US_ASCII)));
  }
}
