package io.thinvol.driver.peer;

import static io.thinvol.driver.GrpcAssertions.assertCode;
import static io.thinvol.driver.GrpcAssertions.message;
import static org.assertj.core.api.Assertions.assertThat;

import csi.v1.VolumeCapability;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.thinvol.driver.XfsDataDir;
import io.thinvol.driver.client.Capabilities;
import io.thinvol.driver.client.CsiClient;
import io.thinvol.driver.host.BlockSumsFile;
import io.thinvol.driver.host.ImageExtents;
import io.thinvol.driver.host.ImageExtents.PhysicalExtent;
import io.thinvol.driver.peer.copy.RangeDigest;
import io.thinvol.driver.preflight.DataFiles;
import io.thinvol.peer.v1.CopyInResponse;
import io.thinvol.peer.v1.PeerCopyGrpc;
import io.thinvol.peer.v1.PullChunk;
import io.thinvol.peer.v1.PullRequest;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.util.Iterator;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A cut-over's copy onto a base whose pull recorded its blocks, with both data dirs on an xfs with
 * reflinks, as on a node: the result is checked against the snapshot without reading what it shares
 * with the base; a base written since its pull (its times set back or not) is read in full and the
 * result refused; attaching a volume drops its record.
 */
@EnableKubernetesMockClient(https = false)
class CrossNodeDeltaRecordTest {

  private static final long MIB = 1L << 20;
  private static final VolumeCapability EXT4 = Capabilities.mount("ext4");
  private static final Pattern CHECKED =
      Pattern.compile("checked the result against its base's record: (\\d+) of (\\d+) bytes read");

  private static final Pattern SENT =
      Pattern.compile(
          "the digest of (\\d+) bytes read (\\d+) bytes; the base's record vouched for the rest");

  KubernetesMockServer server;

  private XfsDataDir xfs;
  private PeerDrivers nodes;

  @AfterEach
  void stop() throws Exception {
    if (nodes != null) {
      nodes.close();
    }
    if (xfs != null) {
      xfs.close();
      assertThat(xfs.leaked()).isEmpty();
    }
  }

  @Test
  void whatTheResultSharesWithAnUnwrittenBaseIsNotReadAndAWrittenBaseIsCaught() throws Exception {
    xfs = XfsDataDir.create(1L << 30);
    nodes = new PeerDrivers(server, List.of("node-a", "node-b"), xfs.path());
    nodes.servePodList();
    CopySources sources = new CopySources(server);
    NodeVolumes volumes = new NodeVolumes(nodes, EXT4);
    String operator = nodes.operatorToken();
    String origin = csi("node-a").createVolume("origin", 128 * MIB, EXT4, null);
    Path mount = volumes.stageAndPublish("node-a", origin);
    DataFiles.writeRandom(mount.resolve("kept.bin"), 32 * MIB);
    List<PhysicalExtent> kept = blocksOf(mount.resolve("kept.bin"));
    volumes.unpublishAndUnstage("node-a", origin);
    String s1 = csi("node-a").createSnapshot("s1", origin);
    sources.restoreOf("pre", "s1", s1);
    String base = volumes.restore("node-b", "pre", s1);
    Path baseImage = nodes.image("node-b", base);
    assertThat(BlockSumsFile.of(baseImage)).exists();
    // node-a records S1 from the pieces it sends, before the trailer: a cut-over that follows at
    // once finds it (it was read after the copy's end, in the background, and a cut-over that came
    // first read S2 in full)
    assertThat(BlockSumsFile.of(snapshotImage(s1))).exists();

    mount = volumes.stageAndPublish("node-a", origin);
    DataFiles.writeRandom(mount.resolve("changed.bin"), 4 * MIB);
    volumes.unpublishAndUnstage("node-a", origin);
    String s2 = MoveCopyCalls.snapshot(nodes, operator, "node-a", "s2", origin).getSnapshotId();
    sources.restoreOf("moved", "s2", s2);
    String s2Sum = DataFiles.sha256(snapshotImage(s2));

    CopyInResponse moved = MoveCopyCalls.copyIn(nodes, operator, "moved", s2, base, "moved");

    Path result = nodes.image("node-b", moved.getVolumeId());
    assertThat(DataFiles.sha256(result)).isEqualTo(s2Sum);
    // Read: the changes (4 MiB and the filesystem's blocks), not the 32 MiB shared with the base.
    Matcher checked = CHECKED.matcher(Files.readString(nodes.dir("node-b").resolve("driver.log")));
    assertThat(checked.find())
        .as("node-b's log tells the result was checked by the record")
        .isTrue();
    assertThat(Long.parseLong(checked.group(1))).isBetween(4 * MIB, 12 * MIB);
    assertThat(BlockSumsFile.of(result)).exists(); // a base for the next cut-over in turn
    // node-a's digest of S2 did not read what S2 shares with S1 either
    Matcher sent = SENT.matcher(Files.readString(nodes.dir("node-a").resolve("driver.log")));
    assertThat(sent.find()).as("node-a's log tells S2's digest took S1's record").isTrue();
    assertThat(Long.parseLong(sent.group(1))).isEqualTo(128 * MIB);
    assertThat(Long.parseLong(sent.group(2))).isBetween(4 * MIB, 12 * MIB);

    // A block of kept.bin, which the delta does not carry, written on node-b's base behind the
    // driver's back; once with its times as they were, once with its modification time set back.
    PhysicalExtent largest =
        kept.stream().max((x, y) -> Long.compare(x.length(), y.length())).orElseThrow();
    long block = largest.physical() + largest.length() / 2 / 4096 * 4096;
    assertThat(largest.length()).isGreaterThan(2 * 4096);
    overwrite(baseImage, block);
    assertRefused(operator, s2, base, "moved-again");
    overwrite(baseImage, block + 4096);
    Files.setLastModifiedTime(baseImage, FileTime.fromMillis(946_684_800_000L));
    assertRefused(operator, s2, base, "moved-once-more");
    assertThat(Files.readString(nodes.dir("node-b").resolve("driver.log")))
        .contains("it was written, or its times changed, since its blocks were recorded");

    // Attached, a volume may be written through its device: its record goes first.
    volumes.stageAndPublish("node-b", moved.getVolumeId());
    assertThat(BlockSumsFile.of(result)).doesNotExist();
    volumes.unpublishAndUnstage("node-b", moved.getVolumeId());
  }

  @Test
  void aSnapshotSentWholeIsRecordedBeforeItsTrailer() throws Exception {
    nodes = new PeerDrivers(server, List.of("node-a", "node-b"));
    nodes.servePodList();
    CopySources sources = new CopySources(server);
    NodeVolumes volumes = new NodeVolumes(nodes, EXT4);
    String origin = csi("node-a").createVolume("origin", 128 * MIB, EXT4, null);
    Path mount = volumes.stageAndPublish("node-a", origin);
    DataFiles.writeRandom(mount.resolve("kept.bin"), 64 * MIB);
    volumes.unpublishAndUnstage("node-a", origin);
    String s1 = csi("node-a").createSnapshot("s1", origin);
    sources.restoreOf("pre", "s1", s1);
    PullRequest request =
        PullRequest.newBuilder()
            .setSnapshotId(s1)
            .setClaimNamespace(CopySources.NAMESPACE)
            .setClaimName("pre")
            .setDigestVersion(RangeDigest.version())
            .build();

    // A cut-over may follow the pre-copy at once (a drain right after an evacuation's pre-copy):
    // S1's record must be there by the time its puller has the trailer, not read afterwards.
    ManagedChannel channel = TlsPort.channel(nodes, "node-a", nodes.nodeToken());
    try {
      Iterator<PullChunk> parts = PeerCopyGrpc.newBlockingStub(channel).pull(request);
      boolean trailer = false;
      while (parts.hasNext() && !trailer) {
        trailer = parts.next().hasTrailer();
      }
      assertThat(trailer).isTrue();
      assertThat(BlockSumsFile.of(snapshotImage(s1))).exists();
    } finally {
      channel.shutdownNow();
    }
  }

  private void assertRefused(String operator, String s2, String base, String name) {
    assertThat(
            message(
                assertCode(
                    Status.Code.INTERNAL,
                    () -> MoveCopyCalls.copyIn(nodes, operator, name, s2, base, "moved"))))
        .contains("does not read as the snapshot");
  }

  private static void overwrite(Path image, long offset) throws Exception {
    try (FileChannel out = FileChannel.open(image, StandardOpenOption.WRITE)) {
      ByteBuffer junk = ByteBuffer.wrap("not what was pulled".getBytes());
      while (junk.hasRemaining()) {
        out.write(junk, offset + junk.position());
      }
    }
  }

  private Path snapshotImage(String snapshot) {
    return nodes.dir("node-a").resolve("data/snapshots").resolve(snapshot).resolve("disk.img");
  }

  private static List<PhysicalExtent> blocksOf(Path file) throws Exception {
    try (ImageExtents extents = ImageExtents.open(file)) {
      return extents.physical(0, Files.size(file));
    }
  }

  private CsiClient csi(String node) {
    return nodes.driver(node).csi();
  }
}
