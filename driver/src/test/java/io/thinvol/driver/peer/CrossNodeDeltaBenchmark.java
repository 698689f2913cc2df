package io.thinvol.driver.peer;

import csi.v1.VolumeCapability;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.thinvol.driver.XfsDataDir;
import io.thinvol.driver.client.Capabilities;
import io.thinvol.driver.client.CsiClient;
import io.thinvol.peer.v1.CopyInResponse;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Random;

/**
 * A VolumeMove's cut-over, driver side, as the issue measures it: node-a holds a 4 GiB block volume
 * with 1 GiB of random data (1 MiB in every 4); node-b pre-copies snapshot S1 of it (a cross-node
 * restore), then 16 MiB are written on node-a (64 pieces of 256 KiB, spread over the volume),
 * snapshot S2 is taken, and node-b makes S2 from the changes since S1 (MoveCopy/CopyIn, as the
 * operator calls it). Once with both data dirs on the machine's disk (no reflinks: the changes are
 * applied in place onto the base, which they consume), once on an xfs with reflinks. Each cut-over
 * has a pre-copy of its own, as each move has. Node-b reaches node-a through a relay that counts
 * the bytes node-a sends. Not a test: bench/copy-bench.sh runs it; it prints table rows.
 *
 * <p>Usage: {@code CrossNodeDeltaBenchmark [cut-overs]}; {@code -Dthinvol.bench.data-dirs=disk} (or
 * {@code xfs}) runs one of the two only, {@code -Dthinvol.bench.label=...} names the drivers' code
 * in the first column (with {@code -Dthinvol.driver.classpath}, another commit's).
 */
public final class CrossNodeDeltaBenchmark {

  private static final long MIB = 1L << 20;
  private static final long VOLUME = 4096 * MIB;
  private static final long WRITTEN = 1024 * MIB;
  private static final int CHANGES = 64;
  private static final int CHANGE = 256 * 1024;
  private static final VolumeCapability RAW = Capabilities.block();

  public static void main(String[] args) throws Exception {
    int cutOvers = args.length > 0 ? Integer.parseInt(args[0]) : 1;
    String which = System.getProperty("thinvol.bench.data-dirs", "both");
    if (!Boolean.getBoolean("thinvol.bench.no-header")) {
      System.out.println(
          "| drivers | data dirs | pre-copy (1 GiB): sent, time | changed after it | cut-over:"
              + " sent, time | load (1 min) |");
      System.out.println("|---|---|---|---|---|---|");
    }
    if (!which.equals("xfs")) {
      run(
          "disk (" + Path.of(System.getProperty("java.io.tmpdir")) + ", no reflinks)",
          null,
          cutOvers);
    }
    if (!which.equals("disk")) {
      try (XfsDataDir xfs = XfsDataDir.create(8 * VOLUME)) {
        run("xfs with reflinks", xfs.path(), cutOvers);
      }
    }
  }

  /**
   * {@code cutOvers} cut-overs, each from a pre-copy of its own, each a new volume deleted after.
   */
  private static void run(String dataDirs, Path parent, int cutOvers) throws Exception {
    String drivers = System.getProperty("thinvol.bench.label", "this tree");
    KubernetesMockServer server = new KubernetesMockServer(false);
    server.init();
    List<String> names = List.of("node-a", "node-b");
    try (PeerDrivers nodes =
            parent == null
                ? new PeerDrivers(server, names)
                : new PeerDrivers(server, names, parent);
        ByteCountingProxy relay = new ByteCountingProxy(nodes.port("node-a"))) {
      nodes.standIn("node-a", relay.port());
      nodes.servePodList();
      CopySources sources = new CopySources(server);
      CsiClient a = nodes.driver("node-a").csi();
      String origin = a.createVolume("origin", VOLUME, RAW, null);
      write(a, origin, nodes.dir("node-a"), new Random(42), 4 * MIB, (int) MIB, WRITTEN);
      String s1 = a.createSnapshot("s1", origin);

      // 64 changes of 256 KiB, one every 64 MiB: in data and in holes alike.
      write(
          a,
          origin,
          nodes.dir("node-a"),
          new Random(7),
          VOLUME / CHANGES,
          CHANGE,
          CHANGES * CHANGE);
      String s2 = a.createSnapshot("s2", origin);
      sources.restoreOf("moved", "s2", s2);
      String operator = nodes.operatorToken();
      relay.takeBytesFromTarget();
      for (int cutOver = 1; cutOver <= cutOvers; cutOver++) {
        sources.restoreOf("pre-" + cutOver, "s1", s1);
        relay.takeBytesFromTarget();
        long started = System.nanoTime();
        String base = new NodeVolumes(nodes, RAW).restore("node-b", "pre-" + cutOver, s1);
        long preNanos = System.nanoTime() - started;
        long preSent = relay.takeBytesFromTarget();
        // As the operator finds it: a driver that has answered it before (its TLS and token
        // review warm), not one started a moment ago.
        MoveCopyCalls.space(nodes, operator, "node-b", base);
        started = System.nanoTime();
        CopyInResponse moved =
            MoveCopyCalls.copyIn(nodes, operator, "moved-" + cutOver, s2, base, "moved");
        long cutNanos = System.nanoTime() - started;
        long cutSent = relay.takeBytesFromTarget();
        System.out.printf(
            "| %s | %s | %.1f MiB, %.1f s | %.0f MiB | %.2f MiB, %.2f s | %s |%n",
            drivers,
            dataDirs,
            preSent / (double) MIB,
            preNanos / 1e9,
            CHANGES * (double) CHANGE / MIB,
            cutSent / (double) MIB,
            cutNanos / 1e9,
            Files.readString(Path.of("/proc/loadavg")).split(" ")[0]);
        nodes.driver("node-b").csi().deleteVolume(moved.getVolumeId());
        nodes.driver("node-b").csi().deleteVolume(base); // gone already where it was consumed
      }
      System.out.println("  " + digestReads(nodes, "node-a") + "; " + digestReads(nodes, "node-b"));
    } finally {
      server.destroy();
    }
  }

  /** What {@code node}'s digests of whole images read, and what they took from a record. */
  private static String digestReads(PeerDrivers nodes, String node) throws IOException {
    List<String> lines = Files.readAllLines(nodes.dir(node).resolve("driver.log"));
    StringBuilder told = new StringBuilder(node + ":");
    for (String line : lines) {
      for (String mark :
          List.of(
              "the digest of ",
              "checked the result",
              "checked the changes",
              "nothing is taken from the record",
              "recorded the blocks")) {
        int at = line.indexOf(mark);
        if (at >= 0) {
          told.append(" [").append(line.substring(at)).append(']');
        }
      }
    }
    return told.toString();
  }

  /**
   * Writes {@code total} random bytes to the block volume, {@code piece} bytes at the start of
   * every {@code stride}; detached after, so that a data dir without reflinks may snapshot it.
   */
  private static void write(
      CsiClient csi, String volume, Path work, Random random, long stride, int piece, long total)
      throws Exception {
    Path staging = work.resolve("staging");
    Path device = work.resolve("device");
    csi.stage(volume, staging, RAW);
    csi.publish(volume, staging, device, RAW, false);
    byte[] chunk = new byte[piece];
    try (FileChannel channel = FileChannel.open(device, StandardOpenOption.WRITE)) {
      for (long at = 0, done = 0; done < total; at += stride, done += piece) {
        random.nextBytes(chunk);
        ByteBuffer buffer = ByteBuffer.wrap(chunk);
        while (buffer.hasRemaining()) {
          channel.write(buffer, at + buffer.position());
        }
      }
      channel.force(true);
    }
    csi.unpublish(volume, device);
    csi.unstage(volume, staging);
  }
}
