package io.thinvol.driver.peer;

import static io.thinvol.driver.GrpcAssertions.assertCode;
import static io.thinvol.driver.GrpcAssertions.message;
import static io.thinvol.driver.client.ContentSources.snapshotSource;
import static io.thinvol.driver.client.ContentSources.volumeSource;
import static org.assertj.core.api.Assertions.assertThat;

import csi.v1.VolumeCapability;
import csi.v1.VolumeContentSource;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.grpc.Status;
import io.thinvol.driver.client.Capabilities;
import io.thinvol.driver.preflight.DataFiles;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AutoClose;
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

  @AutoClose private TwoNodeCluster cluster;

  @BeforeEach
  void start() throws Exception {
    cluster = new TwoNodeCluster(server, EXT4);
  }

  @Test
  void aCloneOfAVolumeOnNodeAHoldsItsDataOnNodeBAndOnlyItsAllocatedBytes() throws Exception {
    String origin = cluster.csi("node-a").createVolume("origin", 256 * MIB, EXT4, null);
    cluster.nodes.persistentVolumes(Map.of(origin, "node-a"));
    Path file = cluster.volumes.stageAndPublish("node-a", origin).resolve("data.bin");
    String data = DataFiles.writeRandom(file, 24 * MIB);
    cluster.volumes.unpublishAndUnstage("node-a", origin);
    cluster.sources.cloneOf("cold", "origin", origin);
    cluster.sources.cloneOf("hot", "origin", origin);

    // Not staged on node-a: read in place under the volume's lock, which is released after.
    String cold = create("node-b", "cold", volumeSource(origin), "cold");
    assertThat(
            DataFiles.sha256(cluster.volumes.stageAndPublish("node-a", origin).resolve("data.bin")))
        .isEqualTo(data);
    // Staged and published on node-a: copied frozen, as a local clone is, then sent.
    String hot = create("node-b", "hot", volumeSource(origin), "hot");
    long allocatedOnA = cluster.allocated(cluster.nodes.image("node-a", origin));
    for (String clone : new String[] {cold, hot}) {
      long allocatedOnB = cluster.allocated(cluster.nodes.image("node-b", clone));
      assertThat(allocatedOnB).isLessThanOrEqualTo((long) (allocatedOnA * 1.02));
      assertThat(allocatedOnB).isGreaterThan(24 * MIB);
      assertThat(
              DataFiles.sha256(
                  cluster.volumes.stageAndPublish("node-b", clone).resolve("data.bin")))
          .isEqualTo(data);
      cluster.volumes.unpublishAndUnstage("node-b", clone);
    }

    // The same request again is the same volume; nothing else was made.
    assertThat(create("node-b", "hot", volumeSource(origin), "hot")).isEqualTo(hot);
    assertThat(cluster.volumes.entries("node-b", "volumes")).containsExactlyInAnyOrder(cold, hot);
    cluster.volumes.unpublishAndUnstage("node-a", origin);
    // Nothing of the temporary copy is left on node-a.
    assertThat(cluster.volumes.entries("node-a", "snapshots")).isEmpty();
  }

  @Test
  void aRestoreOnNodeBOfASnapshotTakenOnNodeAHoldsTheSnapshotsDataAndItsHoles() throws Exception {
    String origin = cluster.csi("node-a").createVolume("origin", 512 * MIB, EXT4, null);
    Path file = cluster.volumes.stageAndPublish("node-a", origin).resolve("data.bin");
    String data = DataFiles.writeRandom(file, 16 * MIB);
    String snapshot = cluster.csi("node-a").createSnapshot("snap", origin);
    DataFiles.writeRandom(file, 16 * MIB); // after the snapshot: not in the restore
    cluster.volumes.unpublishAndUnstage("node-a", origin);
    cluster.sources.restoreOf("restored", "snap", snapshot);

    String restored = create("node-b", "restored", snapshotSource(snapshot), "restored");
    long allocatedOnA = cluster.allocated(cluster.snapshotImage("node-a", snapshot));
    long allocatedOnB = cluster.allocated(cluster.nodes.image("node-b", restored));
    assertThat(allocatedOnB).isLessThanOrEqualTo((long) (allocatedOnA * 1.02));
    assertThat(allocatedOnB).isLessThan(512 * MIB / 4); // holes stayed holes
    assertThat(
            DataFiles.sha256(
                cluster.volumes.stageAndPublish("node-b", restored).resolve("data.bin")))
        .isEqualTo(data);
    cluster.volumes.unpublishAndUnstage("node-b", restored);
  }

  @Test
  void aSourceNoNodeHoldsIsNotFoundAndAPeerThatIsDownIsUnavailableNamingItsNode() throws Exception {
    String origin = cluster.csi("node-a").createVolume("origin", 64 * MIB, EXT4, null);
    String snapshot = cluster.csi("node-a").createSnapshot("snap", origin);
    cluster.nodes.persistentVolumes(Map.of(origin, "node-a"));
    cluster.sources.cloneOf("clone", "origin", origin);
    cluster.sources.restoreOf("restored", "snap", snapshot);
    String unknown = "snap-0123456789abcdef0123456789abcdef";
    cluster.sources.restoreOf("nowhere", "gone", unknown);

    assertThat(
            message(
                assertCode(
                    Status.Code.NOT_FOUND,
                    () -> create("node-b", "nowhere", snapshotSource(unknown), "nowhere"))))
        .contains(unknown)
        .contains("any node");

    cluster.nodes.stop("node-a");
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
    assertThat(cluster.volumes.entries("node-b", "volumes")).isEmpty();

    cluster.nodes.start("node-a"); // the provisioner's retry succeeds once the peer is back
    String restored = create("node-b", "restored", snapshotSource(snapshot), "restored");
    assertThat(cluster.volumes.entries("node-b", "volumes")).containsExactly(restored);
  }

  private String create(String node, String name, VolumeContentSource source, String claim) {
    return cluster.volumes.create(node, name, source, claim);
  }
}
