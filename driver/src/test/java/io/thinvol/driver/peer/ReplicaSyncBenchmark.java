package io.thinvol.driver.peer;

import csi.v1.VolumeCapability;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.thinvol.driver.XfsDataDir;
import io.thinvol.driver.client.Capabilities;
import io.thinvol.driver.host.ProcessCommandRunner;
import io.thinvol.driver.preflight.DataFiles;
import io.thinvol.peer.v1.CopyInResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * A replication's syncs, driver side, as the operator makes them: node-a's 2 GiB ext4 volume holds
 * 512 MiB written by its pod, which keeps it mounted; the first sync copies it whole to node-b,
 * then each of the next syncs follows 16 MiB written (a file of random data, synced). Per sync: the
 * snapshot's time on node-a (the filesystem is frozen for it), the replica's time on node-b, the
 * bytes node-a sent over the bytes written, and, side by side, what the raw tools take to make the
 * same image from the previous replica on node-b's disk ({@code cp --reflink=auto --sparse=always},
 * synced). Once with both data dirs on the machine's disk (no reflinks), once on an xfs with
 * reflinks; the drivers' resident memory at the end. Not a test: bench/replica-bench.sh runs it; it
 * prints table rows.
 */
public final class ReplicaSyncBenchmark {

  private static final long MIB = 1L << 20;
  private static final long VOLUME = 2048 * MIB;
  private static final long WRITTEN = 512 * MIB;
  private static final long CHANGED = 16 * MIB;
  private static final VolumeCapability EXT4 = Capabilities.mount("ext4");
  private static final ProcessCommandRunner RUN = new ProcessCommandRunner();

  public static void main(String[] args) throws Exception {
    int syncs = args.length > 0 ? Integer.parseInt(args[0]) : 5;
    System.out.println(
        "| data dirs | sync | written | sent | sent ÷ written | snapshot (freeze) | replica"
            + " | cp of the replica |");
    System.out.println("|---|---|---|---|---|---|---|---|");
    run("disk (no reflinks)", null, syncs);
    try (XfsDataDir xfs = XfsDataDir.create(4 * VOLUME)) {
      run("xfs with reflinks", xfs.path(), syncs);
    }
  }

  private static void run(String dataDirs, Path parent, int syncs) throws Exception {
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
      NodeVolumes volumes = new NodeVolumes(nodes, EXT4);
      CopySources sources = new CopySources(server);
      ReplicaCalls calls = new ReplicaCalls(nodes);
      String primary = nodes.driver("node-a").csi().createVolume("data", VOLUME, EXT4, null);
      Path mount = volumes.stageAndPublish("node-a", primary);
      DataFiles.writeRandom(mount.resolve("initial.bin"), WRITTEN);
      calls.enable("node-a", primary);
      sources.replication(ReplicaCalls.NAME, ReplicaCalls.UID, "data", primary, "node-b");
      String replica = null;
      for (int sync = 1; sync <= syncs + 1; sync++) {
        long written = sync == 1 ? WRITTEN : CHANGED;
        if (sync > 1) {
          DataFiles.writeRandom(mount.resolve("change-" + sync + ".bin"), CHANGED);
        }
        relay.takeBytesFromTarget();
        long started = System.nanoTime();
        String snapshot = calls.snapshot(primary, sync);
        long snapNanos = System.nanoTime() - started;
        started = System.nanoTime();
        CopyInResponse made = calls.copyIn("node-b", "data-" + sync, snapshot, replica);
        long copyNanos = System.nanoTime() - started;
        long sent = relay.takeBytesFromTarget();
        String raw = replica == null ? "" : rawCopy(nodes, replica);
        calls.synced("node-a", primary, snapshot, made.getDeltaBytes());
        calls.synced("node-b", made.getVolumeId(), snapshot, made.getDeltaBytes());
        replica = made.getVolumeId();
        System.out.printf(
            "| %s | %s | %.0f MiB | %.2f MiB | %.3f | %.2f s | %.2f s | %s |%n",
            dataDirs,
            sync == 1 ? "1 (whole)" : String.valueOf(sync),
            written / (double) MIB,
            sent / (double) MIB,
            sent / (double) written,
            snapNanos / 1e9,
            copyNanos / 1e9,
            raw);
      }
      Thread.sleep(6_000); // the image's JVMs hand freed C heap back every 5 s
      System.out.println(
          "  drivers' resident memory 6 s after the syncs: " + CrossNodeCopyBenchmark.driversRss());
      volumes.unpublishAndUnstage("node-a", primary);
    } finally {
      server.destroy();
    }
  }

  /** cp of the previous replica on node-b's disk to a new file, synced: the raw tools' floor. */
  private static String rawCopy(PeerDrivers nodes, String replica) throws Exception {
    Path image = nodes.image("node-b", replica);
    Path copy = image.resolveSibling("raw-copy.img");
    long started = System.nanoTime();
    RUN.run(
        Duration.ofMinutes(10),
        List.of("cp", "--reflink=auto", "--sparse=always", image.toString(), copy.toString()));
    RUN.run(Duration.ofMinutes(10), List.of("sync", "-f", copy.toString()));
    long nanos = System.nanoTime() - started;
    Files.delete(copy);
    return String.format("%.2f s", nanos / 1e9);
  }
}
