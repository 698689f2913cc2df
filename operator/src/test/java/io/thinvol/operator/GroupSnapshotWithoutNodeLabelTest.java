package io.thinvol.operator;

import static org.assertj.core.api.Assertions.assertThat;

import csi.v1.DeleteVolumeGroupSnapshotRequest;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.dsl.NonNamespaceOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.thinvol.addons.ClusterFixtures;
import io.thinvol.api.BackendNames;
import io.thinvol.operator.model.GroupSnapshotModel;
import io.thinvol.operator.model.Settings;
import io.thinvol.operator.model.SnapshotContentNode;
import io.thinvol.operator.model.VolumeGroupSnapshotClass;
import io.thinvol.testing.TestCluster;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Group snapshots with csi-snapshotter {@code --node-deployment}, which sees only the group
 * contents and group snapshot classes labelled with its node ({@link NodeGroupSnapshotter}), under
 * a snapshot controller that labels neither (no release does): the operator labels both, so the
 * node's sidecar makes the group with the real driver.
 */
class GroupSnapshotWithoutNodeLabelTest extends MockClusterTest {

  private static final String DRIVER = BackendNames.driver("local");

  private DriverOnHost host;
  private NodeGroupSnapshotter snapshotter;

  @Override
  Settings settings() {
    return GroupSnapshotDeploymentTest.servingGroupSnapshots();
  }

  @Override
  TestCluster startCluster() {
    TestCluster started = TestCluster.start();
    started.installSnapshotCrds();
    started.installGroupSnapshotCrds();
    return started;
  }

  @AfterEach
  void releaseHost() throws Exception {
    if (snapshotter != null) {
      snapshotter.close();
    }
    if (host != null) {
      assertThat(host.release()).as("mounts or loop devices left behind").isEmpty();
    }
  }

  @Test
  @SuppressWarnings("unchecked")
  @DisplayName(
      "The node's sidecar makes the group once the operator labelled its content and class")
  void theNodesSnapshotterMakesTheGroup() throws Exception {
    DriverOnHost.prepareCluster(client);
    apply("metadata:\n  name: local\n");
    Secret tls = namespaced(Secret.class, BackendNames.ADDONS_TLS_SECRET);
    host = DriverOnHost.start(client, NAMESPACE, "local", tls);
    snapshotter = new NodeGroupSnapshotter(client, DriverOnHost.NODE, host.csi(), DRIVER);

    // The snapshot controller: the group's content, with no node label.
    client.resource(content("together", List.of(host.volumeId()), "u1")).create();

    GenericKubernetesResource made =
        await(
            "the node's sidecar to make the group",
            () -> {
              GenericKubernetesResource now = contents().withName("together").get();
              return status(now).get("volumeGroupSnapshotHandle") != null ? now : null;
            });
    String groupId = (String) status(made).get("volumeGroupSnapshotHandle");
    List<String> members =
        ((List<Map<String, String>>) status(made).get("volumeSnapshotInfoList"))
            .stream().map(m -> m.get("snapshotHandle")).toList();
    host.onRelease(
        () ->
            host.csi()
                .groupController()
                .deleteVolumeGroupSnapshot(
                    DeleteVolumeGroupSnapshotRequest.newBuilder()
                        .setGroupSnapshotId(groupId)
                        .addAllSnapshotIds(members)
                        .build()));
    assertThat(made.getMetadata().getLabels())
        .isEqualTo(Map.of(SnapshotContentNode.MANAGED_BY, DriverOnHost.NODE));
    assertThat(groupClass().getMetadata().getLabels())
        .containsEntry(SnapshotContentNode.MANAGED_BY, DriverOnHost.NODE);
    assertThat(members).hasSize(1);
  }

  @Test
  @DisplayName("The class carries the node of the oldest group still to be made, then the next's")
  void theClassFollowsTheGroupToBeMadeNext() {
    apply("metadata:\n  name: local\n");
    client
        .resource(ClusterFixtures.volume("pv-a", DRIVER, "vol-a", "node-a", "apps", "a"))
        .create();
    client
        .resource(ClusterFixtures.volume("pv-b", DRIVER, "vol-b", "node-b", "apps", "b"))
        .create();
    client.resource(content("first", List.of("vol-a"), "u1")).create();
    await("the class labelled for node-a", () -> "node-a".equals(classLabel()));
    client.resource(content("second", List.of("vol-b"), "u2")).create();
    await(
        "the second content labelled",
        () -> contents().withName("second").get().getMetadata().getLabels() != null);
    assertThat(classLabel()).as("node-a's group is older and not made yet").isEqualTo("node-a");

    // node-a's sidecar made the first group
    contents()
        .withName("first")
        .editStatus(
            c -> {
              c.setAdditionalProperty(
                  "status", Map.of("volumeGroupSnapshotHandle", "group-0123", "readyToUse", true));
              return c;
            });
    await("the class labelled for node-b", () -> "node-b".equals(classLabel()));
  }

  @Test
  @DisplayName(
      "A group of volumes on two nodes is labelled for the first, whose driver refuses it;"
          + " a Warning says why")
  void aGroupAcrossNodesGetsAWarning() {
    apply("metadata:\n  name: local\n");
    client
        .resource(ClusterFixtures.volume("pv-a", DRIVER, "vol-a", "node-a", "apps", "a"))
        .create();
    client
        .resource(ClusterFixtures.volume("pv-b", DRIVER, "vol-b", "node-b", "apps", "b"))
        .create();
    GenericKubernetesResource across =
        client.resource(content("across", List.of("vol-a", "vol-b"), "u3")).create();

    var warning =
        await(
            "a Warning on the content",
            () ->
                io.thinvol.testing.DescribedEvents.events(
                        client,
                        "VolumeGroupSnapshotContent",
                        null,
                        "across",
                        across.getMetadata().getUid())
                    .stream()
                    .findFirst()
                    .orElse(null));
    assertThat(warning.getReason()).isEqualTo("SourceNodesDiffer");
    assertThat(warning.getMessage()).contains("[node-a, node-b]");
    // the Warning is posted before the label is patched
    await(
        "the content labelled for the first node",
        () ->
            Map.of(SnapshotContentNode.MANAGED_BY, "node-a")
                .equals(contents().withName("across").get().getMetadata().getLabels()));
  }

  private String classLabel() {
    Map<String, String> labels = groupClass().getMetadata().getLabels();
    return labels == null ? null : labels.get(SnapshotContentNode.MANAGED_BY);
  }

  private VolumeGroupSnapshotClass groupClass() {
    return await(
        "the backend's VolumeGroupSnapshotClass",
        () -> client.resources(VolumeGroupSnapshotClass.class).withName("local").get());
  }

  private NonNamespaceOperation<
          GenericKubernetesResource,
          GenericKubernetesResourceList,
          Resource<GenericKubernetesResource>>
      contents() {
    return client.genericKubernetesResources(
        GroupSnapshotModel.API_VERSION, "VolumeGroupSnapshotContent");
  }

  /** A dynamic group content as the snapshot controller writes it. */
  private static GenericKubernetesResource content(
      String name, List<String> volumeHandles, String uid) {
    GenericKubernetesResource content = new GenericKubernetesResource();
    content.setApiVersion(GroupSnapshotModel.API_VERSION);
    content.setKind("VolumeGroupSnapshotContent");
    content.setMetadata(new ObjectMetaBuilder().withName(name).build());
    Map<String, Object> spec = new HashMap<>();
    spec.put("driver", DRIVER);
    spec.put("deletionPolicy", "Delete");
    spec.put("volumeGroupSnapshotClassName", "local");
    spec.put("source", Map.of("volumeHandles", volumeHandles));
    spec.put(
        "volumeGroupSnapshotRef",
        Map.of(
            "apiVersion",
            GroupSnapshotModel.API_VERSION,
            "kind",
            "VolumeGroupSnapshot",
            "name",
            name,
            "namespace",
            "apps",
            "uid",
            uid));
    content.setAdditionalProperty("spec", spec);
    return content;
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> status(GenericKubernetesResource object) {
    Object status = object.getAdditionalProperties().get("status");
    return status == null ? Map.of() : (Map<String, Object>) status;
  }
}
