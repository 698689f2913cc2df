package io.thinvol.driver.peer;

import static io.thinvol.driver.GrpcAssertions.assertCode;
import static io.thinvol.driver.GrpcAssertions.message;
import static org.assertj.core.api.Assertions.assertThat;

import csi.v1.CapacityRange;
import csi.v1.CreateVolumeRequest;
import csi.v1.VolumeCapability;
import csi.v1.VolumeContentSource;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.grpc.Status;
import io.thinvol.driver.client.Capabilities;
import io.thinvol.driver.client.CsiClient;
import io.thinvol.driver.host.FileStats;
import io.thinvol.driver.host.ProcessCommandRunner;
import io.thinvol.driver.preflight.DataFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A claim on node-b cloned from a claim on node-a, or restored from a snapshot taken on node-a:
 * node b's driver pulls the copy from node a's over the TLS port, in two driver processes on their
 * own data dirs, with real loop devices and filesystems. The data is compared by checksum after
 * staging the copy on node-b; the copy allocates what the source does, no more.
 */
@EnableKubernetesMockClient(https = false)
class CrossNodeCopyTest {

  private static final long MIB = 1L << 20;
  private static final VolumeCapability EXT4 = Capabilities.mount("ext4");

  KubernetesMockServer server;

  private PeerDrivers nodes;
  private CopySources sources;
  private final FileStats stats = new FileStats(new ProcessCommandRunner());

  @BeforeEach
  void start() throws Exception {
    nodes = new PeerDrivers(server);
    nodes.servePodList();
    sources = new CopySources(server);
  }

  @AfterEach
  void stop() throws Exception {
    if (nodes != null) {
      nodes.close();
    }
  }

  @Test
  void aCloneOfAVolumeInUseOnNodeAHoldsItsDataOnNodeBAndOnlyItsAllocatedBytes() throws Exception {
    String origin = csi("node-a").createVolume("origin", 256 * MIB, EXT4, null);
    nodes.persistentVolumes(Map.of(origin, "node-a"));
    Path file = stageAndPublish("node-a", origin).resolve("data.bin");
    String data = DataFiles.writeRandom(file, 24 * MIB);
    sources.cloneOf("clone", "origin", origin);

    // Staged and published on node-a: copied frozen, as a local clone is, then sent.
    String clone = create("node-b", "clone", volumeSource(origin), "clone");
    long allocatedOnA = stats.allocatedBytes(nodes.image("node-a", origin));
    long allocatedOnB = stats.allocatedBytes(nodes.image("node-b", clone));
    assertThat(allocatedOnB).isLessThanOrEqualTo((long) (allocatedOnA * 1.02));
    assertThat(allocatedOnB).isGreaterThan(24 * MIB);
    assertThat(DataFiles.sha256(stageAndPublish("node-b", clone).resolve("data.bin")))
        .isEqualTo(data);

    // The same request again is the same volume; nothing else was made.
    assertThat(create("node-b", "clone", volumeSource(origin), "clone")).isEqualTo(clone);
    assertThat(volumeDirs("node-b")).containsExactly(clone);
    unpublishAndUnstage("node-b", clone);
    unpublishAndUnstage("node-a", origin);
    // Nothing of the temporary copy is left on node-a.
    assertThat(snapshotDirs("node-a")).isEmpty();
  }

  @Test
  void aRestoreOnNodeBOfASnapshotTakenOnNodeAHoldsTheSnapshotsDataAndItsHoles() throws Exception {
    String origin = csi("node-a").createVolume("origin", 512 * MIB, EXT4, null);
    Path file = stageAndPublish("node-a", origin).resolve("data.bin");
    String data = DataFiles.writeRandom(file, 16 * MIB);
    String snapshot = csi("node-a").createSnapshot("snap", origin);
    DataFiles.writeRandom(file, 16 * MIB); // after the snapshot: not in the restore
    unpublishAndUnstage("node-a", origin);
    sources.restoreOf("restored", "snap", snapshot);

    String restored = create("node-b", "restored", snapshotSource(snapshot), "restored");
    long allocatedOnA = stats.allocatedBytes(snapshotImage("node-a", snapshot));
    long allocatedOnB = stats.allocatedBytes(nodes.image("node-b", restored));
    assertThat(allocatedOnB).isLessThanOrEqualTo((long) (allocatedOnA * 1.02));
    assertThat(allocatedOnB).isLessThan(512 * MIB / 4); // holes stayed holes
    assertThat(DataFiles.sha256(stageAndPublish("node-b", restored).resolve("data.bin")))
        .isEqualTo(data);
    unpublishAndUnstage("node-b", restored);
  }

  @Test
  void aSourceNoNodeHoldsIsNotFoundAndAPeerThatIsDownIsUnavailableNamingItsNode() throws Exception {
    String origin = csi("node-a").createVolume("origin", 64 * MIB, EXT4, null);
    String snapshot = csi("node-a").createSnapshot("snap", origin);
    nodes.persistentVolumes(Map.of(origin, "node-a"));
    sources.cloneOf("clone", "origin", origin);
    sources.restoreOf("restored", "snap", snapshot);
    String unknown = "snap-0123456789abcdef0123456789abcdef";
    sources.restoreOf("nowhere", "gone", unknown);

    assertThat(
            message(
                assertCode(
                    Status.Code.NOT_FOUND,
                    () -> create("node-b", "nowhere", snapshotSource(unknown), "nowhere"))))
        .contains(unknown)
        .contains("any node");

    nodes.stop("node-a");
    assertThat(
            message(
                assertCode(
                    Status.Code.UNAVAILABLE,
                    () -> create("node-b", "clone", volumeSource(origin), "clone"))))
        .contains("node node-a");
    assertThat(
            message(
                assertCode(
                    Status.Code.UNAVAILABLE,
                    () -> create("node-b", "restored", snapshotSource(snapshot), "restored"))))
        .contains("node node-a");
    assertThat(volumeDirs("node-b")).isEmpty();

    nodes.start("node-a"); // the provisioner's retry succeeds once the peer is back
    String restored = create("node-b", "restored", snapshotSource(snapshot), "restored");
    assertThat(volumeDirs("node-b")).containsExactly(restored);
  }

  private String create(String node, String name, VolumeContentSource source, String claim) {
    return csi(node)
        .controller()
        .createVolume(
            CreateVolumeRequest.newBuilder()
                .setName(name)
                .setCapacityRange(CapacityRange.newBuilder().setRequiredBytes(64 * MIB))
                .addVolumeCapabilities(EXT4)
                .setVolumeContentSource(source)
                .putAllParameters(CopySources.parametersOf(claim))
                .build())
        .getVolume()
        .getVolumeId();
  }

  static VolumeContentSource volumeSource(String id) {
    return VolumeContentSource.newBuilder()
        .setVolume(VolumeContentSource.VolumeSource.newBuilder().setVolumeId(id))
        .build();
  }

  static VolumeContentSource snapshotSource(String id) {
    return VolumeContentSource.newBuilder()
        .setSnapshot(VolumeContentSource.SnapshotSource.newBuilder().setSnapshotId(id))
        .build();
  }

  private Path snapshotImage(String node, String snapshot) {
    return nodes.dir(node).resolve("data/snapshots").resolve(snapshot).resolve("disk.img");
  }

  /** Every entry of the node's volumes/ directory, half-made ones included. */
  private Stream<String> entries(Path dir) throws Exception {
    return Files.isDirectory(dir)
        ? Files.list(dir).map(p -> p.getFileName().toString()).toList().stream()
        : Stream.empty();
  }

  private java.util.List<String> volumeDirs(String node) throws Exception {
    return entries(nodes.dir(node).resolve("data/volumes")).toList();
  }

  private java.util.List<String> snapshotDirs(String node) throws Exception {
    return entries(nodes.dir(node).resolve("data/snapshots")).toList();
  }

  private CsiClient csi(String node) {
    return nodes.driver(node).csi();
  }

  private Path stageAndPublish(String node, String id) {
    csi(node).stage(id, staging(node, id), EXT4);
    csi(node).publish(id, staging(node, id), target(node, id), EXT4, false);
    return target(node, id);
  }

  private void unpublishAndUnstage(String node, String id) {
    csi(node).unpublish(id, target(node, id));
    csi(node).unstage(id, staging(node, id));
  }

  private Path staging(String node, String id) {
    return nodes.dir(node).resolve("staging").resolve(id);
  }

  private Path target(String node, String id) {
    return nodes.dir(node).resolve("pods").resolve(id).resolve("mount");
  }
}
