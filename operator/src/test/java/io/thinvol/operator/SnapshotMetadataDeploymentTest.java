package io.thinvol.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.thinvol.operator.model.Names;
import io.thinvol.operator.model.Settings;
import io.thinvol.operator.model.SnapshotMetadataService;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Where the cluster serves SnapshotMetadataServices, every node pod runs the
 * external-snapshot-metadata sidecar, a Service fronts it, and the SnapshotMetadataService object
 * names its address, CA and audience; its TLS Secret is the operator's.
 */
class SnapshotMetadataDeploymentTest extends MockClusterTest {

  private static final String HOST = "thinvol-cbt-snapshot-metadata.thinvol-system.svc";

  @Override
  Settings settings() {
    return new Settings(NAMESPACE, SETTINGS.operatorImage(), false, true)
        .withSnapshotMetadataApi(true);
  }

  @Test
  @DisplayName("The sidecar, its Service, Secret, RBAC and SnapshotMetadataService object")
  void deployed() throws Exception {
    apply("metadata:\n  name: cbt\n");
    SnapshotMetadataService object = clusterScoped(SnapshotMetadataService.class, "cbt.thinvol.io");
    assertThat(object.getSpec().address()).isEqualTo(HOST + ":6443");
    assertThat(object.getSpec().audience()).isEqualTo(HOST);

    Secret secret = namespaced(Secret.class, "thinvol-snapshot-metadata-tls");
    String certificatePem = stored(secret, "tls.crt");
    assertThat(stored(secret, "tls.key")).contains("PRIVATE KEY");
    assertThat(new String(Base64.getDecoder().decode(object.getSpec().caCert())))
        .as("the CA backup tools trust is the sidecars' certificate")
        .isEqualTo(certificatePem);
    X509Certificate certificate =
        (X509Certificate)
            CertificateFactory.getInstance("X.509")
                .generateCertificate(
                    new ByteArrayInputStream(certificatePem.getBytes(StandardCharsets.US_ASCII)));
    assertThat(certificate.getSubjectAlternativeNames())
        .as("the certificate names the address in the object: a wildcard for its first label")
        .contains(List.of(2, "*.thinvol-system.svc"));

    Service service = namespaced(Service.class, "thinvol-cbt-snapshot-metadata");
    assertThat(service.getSpec().getInternalTrafficPolicy())
        .as("snapshots are node-local: a client reaches its own node's sidecar")
        .isEqualTo("Local");
    assertThat(service.getSpec().getSelector())
        .isEqualTo(
            namespaced(DaemonSet.class, "thinvol-cbt-node")
                .getSpec()
                .getSelector()
                .getMatchLabels());
    assertThat(service.getSpec().getPorts().get(0).getPort()).isEqualTo(6443);
    assertThat(service.getSpec().getPorts().get(0).getTargetPort().getStrVal())
        .isEqualTo("snap-metadata");

    DaemonSet node = namespaced(DaemonSet.class, "thinvol-cbt-node");
    Container sidecar =
        node.getSpec().getTemplate().getSpec().getContainers().stream()
            .filter(c -> c.getName().equals("csi-snapshot-metadata"))
            .findFirst()
            .orElseThrow();
    assertThat(sidecar.getImage())
        .isEqualTo("registry.k8s.io/sig-storage/csi-snapshot-metadata:v1.1.0");
    assertThat(sidecar.getArgs())
        .contains(
            "--csi-address=/csi/csi.sock",
            "--port=50051",
            "--tls-cert=/etc/thinvol/snapshot-metadata-tls/tls.crt",
            "--tls-key=/etc/thinvol/snapshot-metadata-tls/tls.key");
    assertThat(sidecar.getPorts()).anyMatch(p -> p.getName().equals("snap-metadata"));
    assertThat(node.getSpec().getTemplate().getSpec().getVolumes())
        .anyMatch(
            v ->
                v.getSecret() != null
                    && v.getSecret().getSecretName().equals("thinvol-snapshot-metadata-tls"));

    assertThat(clusterScoped(ClusterRole.class, Names.NODE_CLUSTER_ROLE).getRules())
        .as("the sidecar reviews its clients' tokens and access")
        .anyMatch(r -> r.getResources().contains("subjectaccessreviews"))
        .anyMatch(r -> r.getResources().contains("snapshotmetadataservices"));
  }

  private static String stored(Secret secret, String key) {
    if (secret.getData() != null && secret.getData().containsKey(key)) {
      return new String(Base64.getDecoder().decode(secret.getData().get(key)));
    }
    return secret.getStringData().get(key);
  }
}
