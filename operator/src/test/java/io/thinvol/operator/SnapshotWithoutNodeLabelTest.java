package io.thinvol.operator;

import static org.assertj.core.api.Assertions.assertThat;

import csi.v1.VolumeContentSource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.thinvol.addons.ClusterFixtures;
import io.thinvol.api.BackendNames;
import io.thinvol.driver.client.Capabilities;
import io.thinvol.driver.host.ProcessCommandRunner;
import io.thinvol.driver.preflight.DataFiles;
import io.thinvol.operator.model.SnapshotContentNode;
import io.thinvol.testing.ApiRequest;
import io.thinvol.testing.DescribedEvents;
import io.thinvol.testing.TestCluster;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Snapshots under a snapshot controller that sets no node label on the VolumeSnapshotContents it
 * creates (as OpenShift's managed one): the operator labels thinvol's contents with the node of
 * their source volume, so that node's {@code csi-snapshotter --node-deployment}, which sees only
 * contents labelled for it, makes the snapshot. The snapshot CRDs are installed; the test plays the
 * snapshot controller, the node's snapshotter ({@link NodeSnapshotter}) and the provisioner,
 * against a real driver process on loop devices.
 */
class SnapshotWithoutNodeLabelTest extends MockClusterTest {

  private static final long MIB = 1L << 20;
  private static final String DRIVER = BackendNames.driver("local");

  private DriverOnHost host;
  private NodeSnapshotter snapshotter;

  @Override
  TestCluster startCluster() {
    TestCluster started = TestCluster.start();
    started.installSnapshotCrds();
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
  void theNodesSnapshotterMakesTheSnapshotAndItRestoresTheSameData() throws Exception {
    DriverOnHost.prepareCluster(client);
    apply("metadata:\n  name: local\n");
    Secret tls = namespaced(Secret.class, BackendNames.ADDONS_TLS_SECRET);
    host = DriverOnHost.start(client, NAMESPACE, "local", tls);
    Path source = published(host.volumeId(), host.staging(), "source");
    String written = DataFiles.writeRandom(source.resolve("data.bin"), 64 * MIB);
    sync(source);
    snapshotter = new NodeSnapshotter(client, DriverOnHost.NODE, host.csi(), DRIVER);

    // The snapshot controller: a VolumeSnapshot of the claim and its content, with no node label.
    GenericKubernetesResource snapshot =
        client
            .resource(
                object(
                    """
                    apiVersion: snapshot.storage.k8s.io/v1
                    kind: VolumeSnapshot
                    metadata:
                      name: backup
                      namespace: apps
                    spec:
                      volumeSnapshotClassName: local
                      source:
                        persistentVolumeClaimName: data
                    """))
            .create();
    String contentName = "snapcontent-" + snapshot.getMetadata().getUid();
    Map<String, Object> spec =
        contentSpec(DRIVER, host.volumeId(), "backup", snapshot.getMetadata().getUid());
    client.resource(content(contentName, Map.of(), spec)).create();
    snapshot.setAdditionalProperty("status", Map.of("boundVolumeSnapshotContentName", contentName));
    client.resource(snapshot).updateStatus();

    GenericKubernetesResource made =
        await(
            "the node's snapshotter to make the snapshot",
            () -> {
              assertThat(snapshotter.failures).as("CreateSnapshot failures").isEmpty();
              GenericKubernetesResource now =
                  NodeSnapshotter.objects(client, "VolumeSnapshotContent")
                      .withName(contentName)
                      .get();
              return Boolean.TRUE.equals(status(now).get("readyToUse")) ? now : null;
            });
    String snapshotId = (String) status(made).get("snapshotHandle");
    host.onRelease(
        () ->
            host.csi()
                .controller()
                .deleteSnapshot(
                    csi.v1.DeleteSnapshotRequest.newBuilder().setSnapshotId(snapshotId).build()));
    assertThat(made.getMetadata().getLabels())
        .isEqualTo(Map.of(SnapshotContentNode.MANAGED_BY, DriverOnHost.NODE));
    assertThat(made.getAdditionalProperties().get("spec")).as("spec untouched").isEqualTo(spec);
    assertThat(snapshotter.seen).containsOnly(contentName);

    // The snapshot controller marks the VolumeSnapshot ready; the provisioner restores it.
    snapshot =
        NodeSnapshotter.objects(client, "VolumeSnapshot")
            .inNamespace("apps")
            .withName("backup")
            .get();
    snapshot.setAdditionalProperty(
        "status",
        Map.of(
            "boundVolumeSnapshotContentName",
            contentName,
            "readyToUse",
            true,
            "restoreSize",
            status(made).get("restoreSize")));
    client.resource(snapshot).updateStatus();
    String bound =
        (String)
            status(
                    NodeSnapshotter.objects(client, "VolumeSnapshot")
                        .inNamespace("apps")
                        .withName("backup")
                        .get())
                .get("boundVolumeSnapshotContentName");
    String handle =
        (String)
            status(NodeSnapshotter.objects(client, "VolumeSnapshotContent").withName(bound).get())
                .get("snapshotHandle");
    String restored =
        host.csi()
            .createVolume(
                "pvc-restored",
                1L << 30,
                Capabilities.mount("ext4"),
                VolumeContentSource.newBuilder()
                    .setSnapshot(
                        VolumeContentSource.SnapshotSource.newBuilder().setSnapshotId(handle))
                    .build());
    host.onRelease(() -> host.csi().deleteVolume(restored));
    Path staging = host.directory("staging-restored");
    host.csi().stage(restored, staging, Capabilities.mount("ext4"));
    host.onRelease(() -> host.csi().unstage(restored, staging));
    Path copy = published(restored, staging, "restored");

    assertThat(DataFiles.sha256(copy.resolve("data.bin"))).isEqualTo(written);
    assertThat(operatorPatches())
        .as("the operator's writes to contents: one label")
        .extracting(ApiRequest::name)
        .containsExactly(contentName);
  }

  @Test
  void contentsOfOtherDriversAndLabelledOnesAreLeftAlone() {
    client
        .resource(ClusterFixtures.volume("pv-a", DRIVER, "vol-a", "node-a", "apps", "data"))
        .create();
    GenericKubernetesResource foreign =
        client
            .resource(
                content(
                    "foreign", Map.of(), contentSpec("other.csi.example.com", "vol-a", "s1", "u1")))
            .create();
    GenericKubernetesResource labelled =
        client
            .resource(
                content(
                    "labelled",
                    Map.of(SnapshotContentNode.MANAGED_BY, "node-b"),
                    contentSpec(DRIVER, "vol-a", "s2", "u2")))
            .create();
    // Created last: once it is labelled, the operator has seen the two before it.
    client.resource(content("ours", Map.of(), contentSpec(DRIVER, "vol-a", "s3", "u3"))).create();

    await(
        "the operator to label its own content",
        () ->
            NodeSnapshotter.objects(client, "VolumeSnapshotContent")
                .withName("ours")
                .get()
                .getMetadata()
                .getLabels()
                .containsKey(SnapshotContentNode.MANAGED_BY));
    assertThat(
            NodeSnapshotter.objects(client, "VolumeSnapshotContent")
                .withName("ours")
                .get()
                .getMetadata()
                .getLabels())
        .isEqualTo(Map.of(SnapshotContentNode.MANAGED_BY, "node-a"));
    for (GenericKubernetesResource before : List.of(foreign, labelled)) {
      GenericKubernetesResource now =
          NodeSnapshotter.objects(client, "VolumeSnapshotContent")
              .withName(before.getMetadata().getName())
              .get();
      assertThat(now.getMetadata().getResourceVersion())
          .as("%s unchanged", before.getMetadata().getName())
          .isEqualTo(before.getMetadata().getResourceVersion());
    }
    assertThat(operatorPatches()).extracting(ApiRequest::name).containsExactly("ours");
  }

  @Test
  void aPreProvisionedContentGetsAWarningSayingHowToLabelIt() {
    Map<String, Object> spec = new java.util.HashMap<>(contentSpec(DRIVER, null, "s4", "u4"));
    spec.put("source", Map.of("snapshotHandle", "snap-00000000000000000000000000000001"));
    GenericKubernetesResource imported =
        client.resource(content("imported", Map.of(), spec)).create();

    var warning =
        await(
            "a Warning on the content",
            () ->
                DescribedEvents.events(
                        client,
                        "VolumeSnapshotContent",
                        null,
                        "imported",
                        imported.getMetadata().getUid())
                    .stream()
                    .findFirst()
                    .orElse(null));
    assertThat(warning.getType()).isEqualTo("Warning");
    assertThat(warning.getReason()).isEqualTo("PreProvisionedContent");
    assertThat(warning.getMessage())
        .contains("kubectl label volumesnapshotcontent imported " + SnapshotContentNode.MANAGED_BY);
    assertThat(
            NodeSnapshotter.objects(client, "VolumeSnapshotContent")
                .withName("imported")
                .get()
                .getMetadata()
                .getLabels())
        .isNullOrEmpty();
    assertThat(operatorPatches()).isEmpty();
  }

  /** Publishes a staged volume to a fresh target, as the kubelet does for a pod. */
  private Path published(String volumeId, Path staging, String name) throws Exception {
    Path target = host.directory("target-" + name);
    host.csi().publish(volumeId, staging, target, Capabilities.mount("ext4"), false);
    host.onRelease(() -> host.csi().unpublish(volumeId, target));
    return target;
  }

  private static void sync(Path mounted) {
    new ProcessCommandRunner()
        .run(Duration.ofMinutes(1), List.of("sync", "-f", mounted.toString()));
  }

  /** The operator's patches of VolumeSnapshotContents (the strict server's record; none else). */
  private List<ApiRequest> operatorPatches() {
    return operatorDecisions().stream()
        .map(d -> d.request())
        .filter(r -> r.resource().equals("volumesnapshotcontents") && r.verb().equals("patch"))
        .toList();
  }

  /** A dynamic content's spec as the snapshot controller writes it. */
  private static Map<String, Object> contentSpec(
      String driver, String volumeHandle, String snapshot, String uid) {
    return Map.of(
        "driver",
        driver,
        "deletionPolicy",
        "Delete",
        "volumeSnapshotClassName",
        "local",
        "source",
        volumeHandle == null ? Map.of() : Map.of("volumeHandle", volumeHandle),
        "volumeSnapshotRef",
        Map.of(
            "apiVersion",
            NodeSnapshotter.API_VERSION,
            "kind",
            "VolumeSnapshot",
            "name",
            snapshot,
            "namespace",
            "apps",
            "uid",
            uid));
  }

  private static GenericKubernetesResource content(
      String name, Map<String, String> labels, Map<String, Object> spec) {
    GenericKubernetesResource content =
        object("apiVersion: snapshot.storage.k8s.io/v1\nkind: VolumeSnapshotContent\n");
    content.setMetadata(
        new io.fabric8.kubernetes.api.model.ObjectMetaBuilder()
            .withName(name)
            .withLabels(labels.isEmpty() ? null : labels)
            .build());
    content.setAdditionalProperty("spec", spec);
    return content;
  }

  private static GenericKubernetesResource object(String yaml) {
    return Serialization.unmarshal(yaml, GenericKubernetesResource.class);
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> status(GenericKubernetesResource object) {
    Object status = object.getAdditionalProperties().get("status");
    return status == null ? Map.of() : (Map<String, Object>) status;
  }
}
