package io.thinvol.driver.bench;

import static io.thinvol.driver.bench.BenchSupport.MIB;
import static io.thinvol.driver.bench.BenchSupport.create;
import static io.thinvol.driver.bench.BenchSupport.delete;
import static io.thinvol.driver.bench.BenchSupport.median;
import static io.thinvol.driver.bench.BenchSupport.percentile;
import static io.thinvol.driver.bench.BenchSupport.runScript;

import csi.v1.VolumeCapability;
import csiaddons.identity.GetIdentityRequest;
import io.thinvol.driver.client.AddonsClient;
import io.thinvol.driver.client.Capabilities;
import io.thinvol.driver.client.CsiClient;
import io.thinvol.driver.preflight.DataFiles;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** DriverBenchmark's {@code reclaim} mode: NodeReclaimSpace against a bare fstrim. */
final class ReclaimBenchmark {

  private static final int ADDONS_WARMUP = 3_000;

  private ReclaimBenchmark() {}

  /** Runs the {@code cases} (n1, n8, n1_1g) through the addons socket at {@code addonsSocket}. */
  static void run(CsiClient csi, Path addonsSocket, Path work, Path dataDir, List<String> cases)
      throws Exception {
    try (AddonsClient addons = new AddonsClient(addonsSocket)) {
      warmUp(addons);
      if (cases.contains("n1")) {
        reclaim(csi, addons, work, dataDir, 1, 5, 96 * MIB, "n1", true);
      }
      if (cases.contains("n8")) {
        reclaim(csi, addons, work, dataDir, 8, 5, 96 * MIB, "n8", false);
      }
      if (cases.contains("n1_1g")) {
        reclaim(csi, addons, work, dataDir, 1, 3, 1024 * MIB, "n1_1g", false);
      }
    }
  }

  /**
   * Connects to the addons socket and runs this client's gRPC code until the JIT has compiled it
   * (no-op calls, as for the CSI socket's no-op figure): the client is this benchmark's JVM, not
   * the driver, and cold it added several ms to every timed reclaim (the real callers, a Go sidecar
   * or the operator's long-lived channel, are warm). The calls also warm the driver's gRPC
   * transport, as kubelet's calls keep it warm on a node; its reclaim code stays as cold as a
   * node's few reclaims a day leave it.
   */
  private static void warmUp(AddonsClient addons) {
    for (int i = 0; i < ADDONS_WARMUP; i++) {
      addons.identity().getIdentity(GetIdentityRequest.getDefaultInstance());
    }
  }

  /**
   * NodeReclaimSpace against a bare fstrim on identical volumes: each round prepares n ext4 volumes
   * per side with {@code deleted} bytes written, deleted and synced, and reclaims them through the
   * driver and with bench/raw-fstrim.sh, rotating which side goes first. With {@code commitFirst} a
   * third side commits each journal before its fstrim ({@code sync MOUNT}, an fsync of the mount's
   * directory), as the driver does.
   */
  private static void reclaim(
      CsiClient csi,
      AddonsClient addons,
      Path work,
      Path dataDir,
      int n,
      int rounds,
      long deleted,
      String label,
      boolean commitFirst)
      throws Exception {
    VolumeCapability ext4 = Capabilities.mount("ext4");
    int sideCount = commitFirst ? 3 : 2;
    List<Double> timeRatios = new ArrayList<>();
    List<Double> commitRatios = new ArrayList<>();
    List<Double> byteRatios = new ArrayList<>();
    List<Long> driverNanos = new ArrayList<>();
    List<Long> rawNanos = new ArrayList<>();
    List<Long> commitNanos = new ArrayList<>();
    for (int round = 0; round < rounds; round++) {
      List<String> ids = new ArrayList<>();
      List<Path> stagings = new ArrayList<>();
      for (int i = 0; i < sideCount * n; i++) {
        String slot = "r" + label + "-" + round + "-" + i;
        String id = create(csi, slot, ext4, deleted + 160 * MIB);
        stagings.add(work.resolve("staging-" + slot));
        csi.stage(id, stagings.get(i), ext4);
        Path garbage = stagings.get(i).resolve("garbage.bin");
        DataFiles.writeRandom(garbage, deleted);
        java.nio.file.Files.delete(garbage);
        ids.add(id);
      }
      new ProcessBuilder("sync").start().waitFor();
      long[] driver = new long[2];
      long[] raw = new long[2];
      long[] committed = new long[2];
      List<Runnable> sides = new ArrayList<>();
      sides.add(
          () -> {
            long t0 = System.nanoTime();
            for (int i = 0; i < n; i++) {
              var usage = addons.reclaimOnNode(ids.get(i), stagings.get(i));
              driver[1] +=
                  usage.getPreUsage().getUsageBytes() - usage.getPostUsage().getUsageBytes();
            }
            driver[0] = System.nanoTime() - t0;
          });
      sides.add(() -> rawFstrim(List.of(), pairs(dataDir, ids, stagings, n, 2 * n), raw));
      if (commitFirst) {
        sides.add(
            () ->
                rawFstrim(
                    List.of("--commit"), pairs(dataDir, ids, stagings, 2 * n, 3 * n), committed));
      }
      Collections.rotate(sides, round);
      sides.forEach(Runnable::run);
      driverNanos.add(driver[0]);
      rawNanos.add(raw[0]);
      timeRatios.add((double) driver[0] / raw[0]);
      byteRatios.add((double) driver[1] / raw[1]);
      if (commitFirst) {
        commitNanos.add(committed[0]);
        commitRatios.add((double) driver[0] / committed[0]);
      }
      for (int i = 0; i < ids.size(); i++) {
        csi.unstage(ids.get(i), stagings.get(i));
        delete(csi, ids.get(i));
      }
    }
    System.out.printf("reclaim_%s_driver_ms %.1f%n", label, percentile(driverNanos, 50));
    System.out.printf("reclaim_%s_raw_ms %.1f%n", label, percentile(rawNanos, 50));
    System.out.printf("reclaim_%s_time_ratio %.2f%n", label, median(timeRatios));
    System.out.printf("reclaim_%s_bytes_ratio %.3f%n", label, median(byteRatios));
    if (commitFirst) {
      System.out.printf("reclaim_%s_commit_raw_ms %.1f%n", label, percentile(commitNanos, 50));
      System.out.printf("reclaim_%s_commit_time_ratio %.2f%n", label, median(commitRatios));
    }
  }

  /** IMAGE:MOUNT arguments of bench/raw-fstrim.sh for volumes {@code from} to {@code to}. */
  private static List<String> pairs(
      Path dataDir, List<String> ids, List<Path> stagings, int from, int to) {
    List<String> pairs = new ArrayList<>();
    for (int i = from; i < to; i++) {
      pairs.add(
          dataDir.resolve("volumes").resolve(ids.get(i)).resolve("disk.img")
              + ":"
              + stagings.get(i));
    }
    return pairs;
  }

  private static void rawFstrim(List<String> options, List<String> pairs, long[] result) {
    List<String> argv = new ArrayList<>(List.of("bench/raw-fstrim.sh"));
    argv.addAll(options);
    argv.addAll(pairs);
    String[] out = runScript(argv).split(" ");
    result[0] = (long) (Double.parseDouble(out[0]) * 1e6);
    result[1] = Long.parseLong(out[1]);
  }
}
