package io.thinvol.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.APIGroupBuilder;
import io.fabric8.kubernetes.api.model.APIGroupListBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import org.junit.jupiter.api.Test;

@EnableKubernetesMockClient
class ClusterFactsTest {

  KubernetesMockServer server;
  KubernetesClient client;

  private void groups(String... names) {
    var list = new APIGroupListBuilder();
    for (String name : names) {
      String[] groupVersion = name.split("/");
      var group = new APIGroupBuilder().withName(groupVersion[0]);
      if (groupVersion.length > 1) {
        group.addNewVersion().withGroupVersion(name).withVersion(groupVersion[1]).endVersion();
      }
      list.addToGroups(group.build());
    }
    server.expect().get().withPath("/apis").andReturn(200, list.build()).once();
  }

  @Test
  void openShiftWithSnapshots() {
    groups("apps", "security.openshift.io", "snapshot.storage.k8s.io");
    assertThat(ClusterFacts.of(client)).isEqualTo(new ClusterFacts(true, true, false, false));
  }

  @Test
  void plainKubernetesWithoutSnapshotCrds() {
    groups("apps", "storage.k8s.io");
    assertThat(ClusterFacts.of(client)).isEqualTo(new ClusterFacts(false, false, false, false));
  }

  @Test
  void snapshotMetadataServicesInTheSidecarsVersion() {
    groups("snapshot.storage.k8s.io", "cbt.storage.k8s.io/v1beta1");
    assertThat(ClusterFacts.of(client)).isEqualTo(new ClusterFacts(false, true, true, false));
  }

  @Test
  void snapshotMetadataServicesOnlyInAnOlderVersion() {
    groups("snapshot.storage.k8s.io", "cbt.storage.k8s.io/v1alpha1");
    assertThat(ClusterFacts.of(client)).isEqualTo(new ClusterFacts(false, true, false, false));
  }

  @Test
  void groupSnapshotsInTheSnapshottersVersion() {
    groups("snapshot.storage.k8s.io", "groupsnapshot.storage.k8s.io/v1");
    assertThat(ClusterFacts.of(client)).isEqualTo(new ClusterFacts(false, true, false, true));
  }

  @Test
  void groupSnapshotsOnlyInABetaVersion() {
    groups("snapshot.storage.k8s.io", "groupsnapshot.storage.k8s.io/v1beta1");
    assertThat(ClusterFacts.of(client)).isEqualTo(new ClusterFacts(false, true, false, false));
  }
}
