package io.thinvol.driver.peer;

import static org.assertj.core.api.Assertions.assertThat;

import csi.v1.VolumeCapability;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.thinvol.driver.client.Capabilities;
import io.thinvol.driver.host.FileStats;
import io.thinvol.driver.host.ImageExtents;
import io.thinvol.driver.host.ImageExtents.PhysicalExtent;
import io.thinvol.driver.host.ProcessCommandRunner;
import io.thinvol.driver.preflight.DataFiles;
import io.thinvol.peer.v1.CopyInResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A VolumeMove's cut-over copy, driver side: node-b holds a copy of snapshot S1 of a volume of
 * node-a (a cross-node restore); files are written, deleted and trimmed on node-a, snapshot S2 is
 * taken, and node-b's driver is asked (MoveCopy/CopyIn, on its TLS port, as the operator) for S2 as
 * the changes since S1 applied onto a copy of its base. Two driver processes, real loop devices and
 * filesystems; node-a is reached through a relay that counts what it sends.
 */
@EnableKubernetesMockClient(https = false)
class CrossNodeDeltaTest {

  private static final long MIB = 1L << 20;
  private static final long BLOCK = 4096;
  private static final VolumeCapability EXT4 = Capabilities.mount("ext4");

  KubernetesMockServer server;

  private PeerDrivers nodes;
  private NodeVolumes volumes;
  private CopySources sources;
  private final FileStats stats = new FileStats(new ProcessCommandRunner());

  @BeforeEach
  void start() throws Exception {
    nodes = new PeerDrivers(server);
    volumes = new NodeVolumes(nodes, EXT4);
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
  void theChangesSinceAPulledSnapshotMakeTheNewSnapshotOnNodeBWithHolesWhereNodeATrimmed()
      throws Exception {
    String origin = csi("node-a").createVolume("origin", 256 * MIB, EXT4, null);
    Path mount = volumes.stageAndPublish("node-a", origin);
    DataFiles.writeRandom(mount.resolve("kept.bin"), 24 * MIB);
    DataFiles.writeRandom(mount.resolve("gone.bin"), 16 * MIB);
    String s1 = csi("node-a").createSnapshot("s1", origin);
    sources.restoreOf("pre", "s1", s1);
    String base = volumes.restore("node-b", "pre", s1);
    String baseSum = DataFiles.sha256(nodes.image("node-b", base));
    assertThat(baseSum).isEqualTo(DataFiles.sha256(snapshotImage(s1)));

    // After the pre-copy: 16 MiB written, a file deleted and its blocks trimmed.
    DataFiles.writeRandom(mount.resolve("changed.bin"), 16 * MIB);
    List<PhysicalExtent> trimmed = blocksOf(mount.resolve("gone.bin"));
    Files.delete(mount.resolve("gone.bin"));
    // Committed first: ext4 trims only blocks whose freeing its journal has committed.
    new ProcessCommandRunner().run(Duration.ofSeconds(60), List.of("sync", "-f", mount.toString()));
    new ProcessCommandRunner().run(Duration.ofSeconds(60), List.of("fstrim", mount.toString()));
    String s2 = csi("node-a").createSnapshot("s2", origin);
    volumes.unpublishAndUnstage("node-a", origin);
    sources.restoreOf("moved", "s2", s2);

    long sent;
    CopyInResponse moved;
    try (ByteCountingProxy relay = new ByteCountingProxy(nodes.port("node-a"))) {
      nodes.standIn("node-a", relay.port());
      moved = MoveCopyCalls.copyIn(nodes, operatorToken(), "moved", s2, base, "moved");
      sent = relay.takeBytesFromTarget();
    }

    Path result = nodes.image("node-b", moved.getVolumeId());
    assertThat(moved.getBaseSnapshotId()).isEqualTo(s1);
    assertThat(DataFiles.sha256(result)).isEqualTo(DataFiles.sha256(snapshotImage(s2)));
    // Only the changes crossed: the 16 MiB written, and the filesystem's own few blocks.
    assertThat(sent).isBetween(16 * MIB, (long) (16 * MIB * 1.05) + 512 * 1024);
    // What node-a trimmed is a hole on node-b too, not zeros written; the base is untouched.
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
    assertThat(stats.allocatedBytes(result))
        .isLessThanOrEqualTo(stats.allocatedBytes(snapshotImage(s2)) + MIB);
    assertThat(DataFiles.sha256(nodes.image("node-b", base))).isEqualTo(baseSum);

    // The same call again is the same volume; the result is a base for the next cut-over.
    assertThat(MoveCopyCalls.copyIn(nodes, operatorToken(), "moved", s2, base, "moved"))
        .isEqualTo(moved);
    assertThat(volumes.entries("node-b", "volumes"))
        .containsExactlyInAnyOrder(base, moved.getVolumeId());
  }

  /** Where a file's blocks are on its filesystem's device: offsets in the volume's image. */
  private static List<PhysicalExtent> blocksOf(Path file) throws Exception {
    try (ImageExtents extents = ImageExtents.open(file)) {
      return extents.physical(0, Files.size(file));
    }
  }

  private String operatorToken() {
    return nodes.tokenOf(PeerDrivers.NAMESPACE + ":thinvol-operator");
  }

  private Path snapshotImage(String snapshot) {
    return nodes.dir("node-a").resolve("data/snapshots").resolve(snapshot).resolve("disk.img");
  }

  private io.thinvol.driver.client.CsiClient csi(String node) {
    return nodes.driver(node).csi();
  }
}
