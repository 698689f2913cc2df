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
      list.addToGroups(new APIGroupBuilder().withName(name).build());
    }
    server.expect().get().withPath("/apis").andReturn(200, list.build()).once();
  }

  @Test
  void openShiftWithSnapshots() {
    groups("apps", "security.openshift.io", "snapshot.storage.k8s.io");
    assertThat(ClusterFacts.of(client)).isEqualTo(new ClusterFacts(true, true));
  }

  @Test
  void plainKubernetesWithoutSnapshotCrds() {
    groups("apps", "storage.k8s.io");
    assertThat(ClusterFacts.of(client)).isEqualTo(new ClusterFacts(false, false));
  }
}
