package io.thinvol.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.APIGroupBuilder;
import io.fabric8.kubernetes.api.model.APIGroupListBuilder;
import io.fabric8.kubernetes.api.model.APIResourceListBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

@EnableKubernetesMockClient
class ClusterFactsTest {

  KubernetesMockServer server;
  KubernetesClient client;

  /** The resources of the optional APIs' group versions, as their CRDs serve them. */
  private static final Map<String, List<String>> RESOURCES =
      Map.of(
          "snapshot.storage.k8s.io/v1",
          List.of("volumesnapshotclasses", "volumesnapshotcontents", "volumesnapshots"),
          "cbt.storage.k8s.io/v1beta1",
          List.of("snapshotmetadataservices"),
          "cbt.storage.k8s.io/v1alpha1",
          List.of("snapshotmetadataservices"),
          "groupsnapshot.storage.k8s.io/v1",
          List.of("volumegroupsnapshotclasses", "volumegroupsnapshotcontents"),
          "groupsnapshot.storage.k8s.io/v1beta1",
          List.of("volumegroupsnapshotclasses", "volumegroupsnapshotcontents"),
          "monitoring.coreos.com/v1",
          List.of("podmonitors", "servicemonitors", "prometheusrules", "alertmanagers"));

  /** Groups served ({@code group} or {@code group/version}), each version with its resources. */
  private void groups(String... names) {
    var list = new APIGroupListBuilder();
    for (String name : names) {
      String[] groupVersion = name.split("/");
      var group = new APIGroupBuilder().withName(groupVersion[0]);
      if (groupVersion.length > 1) {
        group.addNewVersion().withGroupVersion(name).withVersion(groupVersion[1]).endVersion();
        resources(name, RESOURCES.get(name));
      }
      list.addToGroups(group.build());
    }
    server.expect().get().withPath("/apis").andReturn(200, list.build()).always();
  }

  private void resources(String groupVersion, List<String> names) {
    var list = new APIResourceListBuilder().withGroupVersion(groupVersion);
    names.forEach(n -> list.addNewResource().withName(n).endResource());
    server.expect().get().withPath("/apis/" + groupVersion).andReturn(200, list.build()).always();
  }

  @Test
  void openShiftWithSnapshots() {
    groups("apps", "security.openshift.io", "snapshot.storage.k8s.io/v1");
    assertThat(ClusterFacts.of(client))
        .isEqualTo(new ClusterFacts(true, true, false, false, false));
  }

  @Test
  void plainKubernetesWithoutSnapshotCrds() {
    groups("apps", "storage.k8s.io");
    assertThat(ClusterFacts.of(client))
        .isEqualTo(new ClusterFacts(false, false, false, false, false));
  }

  @Test
  void snapshotMetadataServicesInTheSidecarsVersion() {
    groups("snapshot.storage.k8s.io/v1", "cbt.storage.k8s.io/v1beta1");
    assertThat(ClusterFacts.of(client))
        .isEqualTo(new ClusterFacts(false, true, true, false, false));
  }

  @Test
  void snapshotMetadataServicesOnlyInAnOlderVersion() {
    groups("snapshot.storage.k8s.io/v1", "cbt.storage.k8s.io/v1alpha1");
    assertThat(ClusterFacts.of(client))
        .isEqualTo(new ClusterFacts(false, true, false, false, false));
  }

  @Test
  void groupSnapshotsInTheSnapshottersVersion() {
    groups("snapshot.storage.k8s.io/v1", "groupsnapshot.storage.k8s.io/v1");
    assertThat(ClusterFacts.of(client))
        .isEqualTo(new ClusterFacts(false, true, false, true, false));
  }

  @Test
  void groupSnapshotsOnlyInABetaVersion() {
    groups("snapshot.storage.k8s.io/v1", "groupsnapshot.storage.k8s.io/v1beta1");
    assertThat(ClusterFacts.of(client))
        .isEqualTo(new ClusterFacts(false, true, false, false, false));
  }

  @Test
  void prometheusOperatorsMonitoringApi() {
    groups("apps", "monitoring.coreos.com/v1");
    assertThat(ClusterFacts.of(client))
        .isEqualTo(new ClusterFacts(false, false, false, false, true));
  }
}
