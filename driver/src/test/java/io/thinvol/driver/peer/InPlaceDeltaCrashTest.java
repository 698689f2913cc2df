package io.thinvol.driver.peer;

import static io.thinvol.driver.GrpcAssertions.assertCode;
import static org.assertj.core.api.Assertions.assertThat;

import csi.v1.ListVolumesRequest;
import csi.v1.VolumeCapability;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.grpc.Status;
import io.thinvol.driver.client.Capabilities;
import io.thinvol.driver.host.DeltaSpool;
import io.thinvol.driver.preflight.DataFiles;
import io.thinvol.peer.v1.CopyInResponse;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A move's cut-over copy applied in place onto its base (a data dir without reflinks), the target's
 * driver killed (SIGKILL) in the middle and started again, as its container restarts: before the
 * changes are committed the base is as it was and nothing else is left; after, the start finishes
 * the new volume from the journal, whichever step the kill interrupted (states a kill leaves,
 * written into the stopped driver's data dir as the driver writes them).
 */
@EnableKubernetesMockClient(https = false)
class InPlaceDeltaCrashTest {

  private static final long MIB = 1L << 20;
  private static final VolumeCapability EXT4 = Capabilities.mount("ext4");
  private static final VolumeCapability RAW = Capabilities.block();

  KubernetesMockServer server;

  @AutoClose private TwoNodeCluster cluster;

  @BeforeEach
  void start() throws Exception {
    cluster = new TwoNodeCluster(server, EXT4);
  }

  @Test
  void aTargetKilledWhileTheChangesArriveKeepsItsBaseAndCopiesAgain() throws Exception {
    String origin = cluster.csi("node-a").createVolume("origin", 512 * MIB, EXT4, null);
    Path mount = cluster.volumes.stageAndPublish("node-a", origin);
    DataFiles.writeRandom(mount.resolve("first.bin"), 16 * MIB);
    String s1 = cluster.csi("node-a").createSnapshot("s1", origin);
    cluster.sources.restoreOf("pre", "s1", s1);
    String base = cluster.volumes.restore("node-b", "pre", s1);
    String baseSum = DataFiles.sha256(cluster.nodes.image("node-b", base));
    String baseMeta = Files.readString(cluster.nodes.meta("node-b", base));
    DataFiles.writeRandom(mount.resolve("second.bin"), 192 * MIB);
    cluster.volumes.unpublishAndUnstage("node-a", origin);
    String operator = cluster.nodes.operatorToken();
    String s2 =
        MoveCopyCalls.snapshot(cluster.nodes, operator, "node-a", "s2", origin).getSnapshotId();
    cluster.sources.restoreOf("moved", "s2", s2);

    // 192 MiB changed: killed while they arrive, long before the trailer and so the commit.
    cluster.killNodeBMidCopy(
        () -> MoveCopyCalls.copyIn(cluster.nodes, operator, "moved", s2, base, "moved"), 16 * MIB);

    cluster.nodes.start("node-b");
    assertThat(cluster.volumes.entries("node-b", "volumes"))
        .as("the spool is gone, the base stays")
        .containsExactly(base);
    assertThat(DataFiles.sha256(cluster.nodes.image("node-b", base))).isEqualTo(baseSum);
    assertThat(Files.readString(cluster.nodes.meta("node-b", base))).isEqualTo(baseMeta);

    CopyInResponse moved =
        MoveCopyCalls.copyIn(cluster.nodes, operator, "moved", s2, base, "moved");
    assertThat(DataFiles.sha256(cluster.nodes.image("node-b", moved.getVolumeId())))
        .isEqualTo(DataFiles.sha256(cluster.snapshotImage("node-a", s2)));
    assertThat(cluster.volumes.entries("node-b", "volumes")).containsExactly(moved.getVolumeId());
  }

  /** Every state a kill after the commit leaves is finished at the next start, the same way. */
  @Test
  void aTargetKilledAfterTheCommitFinishesTheVolumeWhenItStarts() throws Exception {
    for (Interrupted at : Interrupted.values()) {
      String base = cluster.csi("node-b").createVolume("base-" + at.ordinal(), 64 * MIB, RAW, null);
      Path baseImage = cluster.nodes.image("node-b", base);
      writeRandom(baseImage, new Random(at.ordinal()), List.of(0L, 8 * MIB, 40 * MIB), MIB);
      String baseMeta = Files.readString(cluster.nodes.meta("node-b", base));
      String baseSum = DataFiles.sha256(baseImage);
      cluster.nodes.driver("node-b").kill();

      String made = "vol-" + "0123456789abcdef0123456789abcd" + String.format("%02d", at.ordinal());
      Path dir = cluster.nodes.dir("node-b").resolve("data/volumes/.applying-" + made);
      Files.createDirectories(dir);
      Path expected = cluster.nodes.dir("node-b").resolve("expected.img");
      Files.copy(baseImage, expected, StandardCopyOption.REPLACE_EXISTING);
      List<Change> changes = changes(new Random(100 + at.ordinal()));
      try (DeltaSpool spool = DeltaSpool.create(dir.resolve("delta.spool"))) {
        for (Change change : changes) {
          change.spool(spool);
          change.apply(expected);
        }
        spool.finish();
      }
      Files.writeString(
          dir.resolve("meta.json"),
          baseMeta
              .replace(base, made)
              .replace("\"base-" + at.ordinal() + "\"", "\"made-" + at.ordinal() + "\""));
      if (at != Interrupted.BEFORE_THE_COMMIT) {
        Files.writeString(dir.resolve("applied-onto"), base);
      }
      at.leave(dir, baseImage, changes);

      cluster.nodes.start("node-b");
      assertThat(Files.exists(dir)).as("%s: the private directory is gone", at).isFalse();
      if (at == Interrupted.BEFORE_THE_COMMIT) {
        assertThat(cluster.volumes.entries("node-b", "volumes")).as("%s", at).containsExactly(base);
        assertThat(DataFiles.sha256(baseImage)).isEqualTo(baseSum);
        cluster.csi("node-b").deleteVolume(base);
        continue;
      }
      assertThat(cluster.volumes.entries("node-b", "volumes")).as("%s", at).containsExactly(made);
      Path image = cluster.nodes.image("node-b", made);
      assertThat(DataFiles.sha256(image)).as("%s", at).isEqualTo(DataFiles.sha256(expected));
      assertThat(cluster.volumes.entries("node-b", "volumes/" + made))
          .as("%s: the journal is gone", at)
          .containsExactlyInAnyOrder("disk.img", "meta.json");
      assertThat(
              cluster
                  .csi("node-b")
                  .controller()
                  .listVolumes(ListVolumesRequest.getDefaultInstance())
                  .getEntriesList()
                  .stream()
                  .map(entry -> entry.getVolume().getVolumeId()))
          .as("%s", at)
          .containsExactly(made);
      assertCode(
          Status.Code.NOT_FOUND,
          () -> MoveCopyCalls.space(cluster.nodes, cluster.nodes.operatorToken(), "node-b", base));
      cluster.csi("node-b").deleteVolume(made);
    }
  }

  /** Where a kill stopped the driver: the steps it had done, the changes spooled and synced. */
  private enum Interrupted {
    BEFORE_THE_COMMIT,
    AT_THE_COMMIT,
    HALF_APPLIED,
    APPLIED,
    BASE_REMOVED,
    SPOOL_DROPPED;

    /** Does what the driver had done by then, after the spool and the new volume's meta file. */
    void leave(Path dir, Path baseImage, List<Change> changes) throws Exception {
      if (this == BEFORE_THE_COMMIT || this == AT_THE_COMMIT) {
        return;
      }
      Path image = dir.resolve("disk.img");
      Files.move(baseImage, image, StandardCopyOption.ATOMIC_MOVE);
      int applied = this == HALF_APPLIED ? changes.size() / 2 : changes.size();
      for (Change change : changes.subList(0, applied)) {
        change.apply(image);
      }
      if (this == HALF_APPLIED || this == APPLIED) {
        return;
      }
      Path baseDir = baseImage.getParent();
      Files.move(baseDir, baseDir.resolveSibling(".deleting-" + baseDir.getFileName()));
      if (this == SPOOL_DROPPED) {
        Files.delete(dir.resolve("delta.spool"));
      }
    }
  }

  /** A change of the image: bytes at an offset, or a run of zeros to punch. */
  private record Change(long offset, byte[] bytes, long zeros) {

    void spool(DeltaSpool spool) throws Exception {
      if (bytes == null) {
        spool.zeros(offset, zeros);
      } else {
        spool.bytes(offset, ByteBuffer.wrap(bytes));
      }
    }

    void apply(Path image) throws Exception {
      try (FileChannel out = FileChannel.open(image, StandardOpenOption.WRITE)) {
        ByteBuffer data = ByteBuffer.wrap(bytes == null ? new byte[(int) zeros] : bytes);
        while (data.hasRemaining()) {
          out.write(data, offset + data.position());
        }
      }
    }
  }

  /** Bytes over data and over holes, zeros over data, in ascending order as a delta sends them. */
  private static List<Change> changes(Random random) {
    byte[] first = new byte[256 * 1024];
    byte[] second = new byte[128 * 1024];
    byte[] third = new byte[1024 * 1024];
    random.nextBytes(first);
    random.nextBytes(second);
    random.nextBytes(third);
    return List.of(
        new Change(64 * 1024, first, 0),
        new Change(MIB, null, 512 * 1024),
        new Change(20 * MIB, second, 0),
        new Change(40 * MIB + 4096, null, 64 * 1024),
        new Change(63 * MIB, third, 0));
  }

  private static void writeRandom(Path image, Random random, List<Long> offsets, long length)
      throws Exception {
    byte[] bytes = new byte[(int) length];
    try (FileChannel out = FileChannel.open(image, StandardOpenOption.WRITE)) {
      for (long offset : offsets) {
        random.nextBytes(bytes);
        ByteBuffer data = ByteBuffer.wrap(bytes);
        while (data.hasRemaining()) {
          out.write(data, offset + data.position());
        }
      }
      out.force(true);
    }
  }
}
