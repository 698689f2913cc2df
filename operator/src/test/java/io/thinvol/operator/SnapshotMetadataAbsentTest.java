package io.thinvol.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.thinvol.operator.model.Names;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Where the cluster serves no SnapshotMetadataServices, nothing of the sidecar is deployed. */
class SnapshotMetadataAbsentTest extends MockClusterTest {

  @Test
  @DisplayName("Without the SnapshotMetadataService CRD: no sidecar, Service, Secret or object")
  void nothingDeployed() {
    assertThat(settings().snapshotApi()).isTrue();
    assertThat(settings().snapshotMetadataApi()).isFalse();
    apply("metadata:\n  name: plain\n");
    DaemonSet node = namespaced(DaemonSet.class, "thinvol-plain-node");
    assertThat(node.getSpec().getTemplate().getSpec().getContainers())
        .noneMatch(c -> c.getName().equals("csi-snapshot-metadata"));
    assertThat(clusterScoped(ClusterRole.class, Names.NODE_CLUSTER_ROLE).getRules())
        .noneMatch(r -> r.getResources().contains("subjectaccessreviews"));
    assertThat(
            client
                .services()
                .inNamespace(NAMESPACE)
                .withName("thinvol-plain-snapshot-metadata")
                .get())
        .isNull();
    assertThat(
            client.secrets().inNamespace(NAMESPACE).withName("thinvol-snapshot-metadata-tls").get())
        .isNull();
    assertThat(operatorDecisions())
        .as("not even an informer on SnapshotMetadataServices")
        .noneMatch(d -> "snapshotmetadataservices".equals(d.request().resource()));
  }
}
