package io.thinvol.driver.peer;

import static io.thinvol.driver.GrpcAssertions.assertCode;
import static io.thinvol.driver.GrpcAssertions.message;
import static org.assertj.core.api.Assertions.assertThat;

import csi.v1.VolumeCapability;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.grpc.Status;
import io.thinvol.driver.client.Capabilities;
import io.thinvol.driver.host.ImageExtents;
import io.thinvol.driver.host.ImageExtents.PhysicalExtent;
import io.thinvol.driver.host.ProcessCommandRunner;
import io.thinvol.driver.preflight.DataFiles;
import io.thinvol.peer.v1.CopyInResponse;
import io.thinvol.peer.v1.SpaceResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A VolumeMove's cut-over copy, driver side: node-b holds a copy of snapshot S1 of a volume of
 * node-a (a cross-node restore); files are written, deleted and trimmed on node-a, snapshot S2 is
 * taken (MoveCopy/Snapshot, as the operator), and node-b's driver is asked (MoveCopy/CopyIn, on its
 * TLS port, as the operator) for S2 as the changes since S1 applied onto its base: in place on
 * these data dirs without reflinks, which consumes the base, or onto a copy of it where the base's
 * record of its blocks cannot vouch for the result. Two driver processes, real loop devices and
 * filesystems; node-a is reached through a relay that counts what it sends.
 */
@EnableKubernetesMockClient(https = false)
class CrossNodeDeltaTest {

  private static final long MIB = 1L << 20;
  private static final long BLOCK = 4096;
  private static final VolumeCapability EXT4 = Capabilities.mount("ext4");

  KubernetesMockServer server;

  @AutoClose private TwoNodeCluster cluster;

  @BeforeEach
  void start() throws Exception {
    cluster = new TwoNodeCluster(server, EXT4);
  }

  @Test
  void theChangesSinceAPulledSnapshotMakeTheNewSnapshotOnNodeBWithHolesWhereNodeATrimmed()
      throws Exception {
    String origin = cluster.csi("node-a").createVolume("origin", 256 * MIB, EXT4, null);
    Path mount = cluster.volumes.stageAndPublish("node-a", origin);
    DataFiles.writeRandom(mount.resolve("kept.bin"), 24 * MIB);
    DataFiles.writeRandom(mount.resolve("gone.bin"), 16 * MIB);
    String s1 = cluster.csi("node-a").createSnapshot("s1", origin);
    cluster.sources.restoreOf("pre", "s1", s1);
    String base = cluster.volumes.restore("node-b", "pre", s1);
    String baseSum = DataFiles.sha256(cluster.nodes.image("node-b", base));
    assertThat(baseSum).isEqualTo(DataFiles.sha256(cluster.snapshotImage("node-a", s1)));
    Object baseInode = Files.getAttribute(cluster.nodes.image("node-b", base), "unix:ino");
    // What the move follows its pre-copy by: the base holds the data of S1, not its size.
    SpaceResponse preCopied = space("node-b", base);
    assertThat(preCopied.getSizeBytes()).isEqualTo(256 * MIB);
    assertThat(preCopied.getAllocatedBytes())
        .isEqualTo(cluster.allocated(cluster.nodes.image("node-b", base)))
        .isBetween(
            24 * MIB, (long) (cluster.allocated(cluster.snapshotImage("node-a", s1)) * 1.02));

    // After the pre-copy: 16 MiB written, a file deleted and its blocks trimmed.
    DataFiles.writeRandom(mount.resolve("changed.bin"), 16 * MIB);
    List<PhysicalExtent> trimmed = blocksOf(mount.resolve("gone.bin"));
    Files.delete(mount.resolve("gone.bin"));
    // Committed first: ext4 trims only blocks whose freeing its journal has committed.
    new ProcessCommandRunner().run(Duration.ofSeconds(60), List.of("sync", "-f", mount.toString()));
    new ProcessCommandRunner().run(Duration.ofSeconds(60), List.of("fstrim", mount.toString()));
    // S2 as the cut-over takes it: of a volume no pod uses any more, asked by the operator.
    cluster.volumes.unpublishAndUnstage("node-a", origin);
    String s2 =
        MoveCopyCalls.snapshot(cluster.nodes, cluster.nodes.operatorToken(), "node-a", "s2", origin)
            .getSnapshotId();
    cluster.sources.restoreOf("moved", "s2", s2);

    long sent;
    CopyInResponse moved;
    try (ByteCountingProxy relay = new ByteCountingProxy(cluster.nodes.port("node-a"))) {
      cluster.nodes.standIn("node-a", relay.port());
      moved =
          MoveCopyCalls.copyIn(
              cluster.nodes, cluster.nodes.operatorToken(), "moved", s2, base, "moved");
      sent = relay.takeBytesFromTarget();
    }

    Path result = cluster.nodes.image("node-b", moved.getVolumeId());
    assertThat(moved.getBaseSnapshotId()).isEqualTo(s1);
    // What it received of the changes: their data, not the holes node-a trimmed (sent as lengths).
    assertThat(moved.getDeltaBytes()).isBetween(16 * MIB, sent);
    assertThat(DataFiles.sha256(result))
        .isEqualTo(DataFiles.sha256(cluster.snapshotImage("node-a", s2)));
    // Only the changes crossed: the 16 MiB written, and the filesystem's own few blocks.
    assertThat(sent).isBetween(16 * MIB, (long) (16 * MIB * 1.05) + 512 * 1024);
    // What node-a trimmed is a hole on node-b too, not zeros written.
    assertThat(trimmed).isNotEmpty();
    try (ImageExtents image = ImageExtents.open(result)) {
      for (PhysicalExtent extent : trimmed) {
        // The whole 4096-byte blocks of the image inside it (a small ext4 has 1 KiB blocks).
        long from = (extent.physical() + BLOCK - 1) / BLOCK * BLOCK;
        long to = (extent.physical() + extent.length()) / BLOCK * BLOCK;
        long data = image.nextData(from);
        assertThat(data < 0 || data >= to)
            .as("data at %d, in the trimmed range [%d, %d)", data, from, to)
            .isTrue();
      }
    }
    assertThat(cluster.allocated(result))
        .isLessThanOrEqualTo(cluster.allocated(cluster.snapshotImage("node-a", s2)) + MIB);
    assertThat(space("node-b", moved.getVolumeId()))
        .isEqualTo(
            SpaceResponse.newBuilder()
                .setSizeBytes(moved.getSizeBytes())
                .setAllocatedBytes(cluster.allocated(result))
                .build());
    // The base's own image, the changes applied onto it: nothing copied, the base gone.
    assertThat(Files.getAttribute(result, "unix:ino")).isEqualTo(baseInode);
    assertThat(cluster.volumes.entries("node-b", "volumes")).containsExactly(moved.getVolumeId());
    assertCode(Status.Code.NOT_FOUND, () -> space("node-b", base));

    // The same call again is the same volume, nothing pulled (the base is no longer there to say
    // which snapshot it was); the result is a base for the next cut-over. The pre-copy's claim
    // deleted after the move deletes nothing.
    assertThat(
            MoveCopyCalls.copyIn(
                cluster.nodes, cluster.nodes.operatorToken(), "moved", s2, base, "moved"))
        .isEqualTo(moved.toBuilder().setDeltaBytes(0).setBaseSnapshotId("").build());
    cluster.csi("node-b").deleteVolume(base);
    assertThat(cluster.volumes.entries("node-b", "volumes")).containsExactly(moved.getVolumeId());
    assertThat(DataFiles.sha256(result))
        .isEqualTo(DataFiles.sha256(cluster.snapshotImage("node-a", s2)));

    // A rollback that never learned the copy's answer drops it by name, only as a copy of S2.
    String operator = cluster.nodes.operatorToken();
    assertThat(
            message(
                assertCode(
                    Status.Code.FAILED_PRECONDITION,
                    () -> MoveCopyCalls.dropVolume(cluster.nodes, operator, "moved", s1))))
        .contains("was not copied from snapshot " + s1);
    assertCode(
        Status.Code.PERMISSION_DENIED,
        () -> MoveCopyCalls.dropVolume(cluster.nodes, cluster.nodes.nodeToken(), "moved", s2));
    assertThat(MoveCopyCalls.dropVolume(cluster.nodes, operator, "moved", s2)).isTrue();
    assertThat(MoveCopyCalls.dropVolume(cluster.nodes, operator, "moved", s2)).isFalse();
    assertThat(cluster.volumes.entries("node-b", "volumes")).isEmpty();
  }

  @Test
  void aBaseWithoutARecordOfItsBlocksIsCopiedAndKept() throws Exception {
    String origin = cluster.csi("node-a").createVolume("origin", 64 * MIB, EXT4, null);
    Path mount = cluster.volumes.stageAndPublish("node-a", origin);
    DataFiles.writeRandom(mount.resolve("kept.bin"), 8 * MIB);
    String s1 = cluster.csi("node-a").createSnapshot("s1", origin);
    cluster.sources.restoreOf("pre", "s1", s1);
    String base = cluster.volumes.restore("node-b", "pre", s1);
    Path baseImage = cluster.nodes.image("node-b", base);
    String baseSum = DataFiles.sha256(baseImage);
    // As a pre-copy made by an older release has it, or one whose record failed.
    Files.delete(baseImage.resolveSibling("disk.img.sums"));
    DataFiles.writeRandom(mount.resolve("changed.bin"), 4 * MIB);
    cluster.volumes.unpublishAndUnstage("node-a", origin);
    String operator = cluster.nodes.operatorToken();
    String s2 =
        MoveCopyCalls.snapshot(cluster.nodes, operator, "node-a", "s2", origin).getSnapshotId();
    cluster.sources.restoreOf("moved", "s2", s2);

    CopyInResponse moved =
        MoveCopyCalls.copyIn(cluster.nodes, operator, "moved", s2, base, "moved");

    assertThat(DataFiles.sha256(cluster.nodes.image("node-b", moved.getVolumeId())))
        .isEqualTo(DataFiles.sha256(cluster.snapshotImage("node-a", s2)));
    assertThat(moved.getBaseSnapshotId()).isEqualTo(s1);
    assertThat(cluster.volumes.entries("node-b", "volumes"))
        .containsExactlyInAnyOrder(base, moved.getVolumeId());
    assertThat(DataFiles.sha256(baseImage)).isEqualTo(baseSum);
  }

  /** Where a file's blocks are on its filesystem's device: offsets in the volume's image. */
  private static List<PhysicalExtent> blocksOf(Path file) throws Exception {
    try (ImageExtents extents = ImageExtents.open(file)) {
      return extents.physical(0, Files.size(file));
    }
  }

  private SpaceResponse space(String node, String volumeId) throws Exception {
    return MoveCopyCalls.space(cluster.nodes, cluster.nodes.operatorToken(), node, volumeId);
  }
}
