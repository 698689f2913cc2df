package io.thinvol.driver.bench;

import static io.thinvol.driver.bench.BenchSupport.MIB;
import static io.thinvol.driver.bench.BenchSupport.create;
import static io.thinvol.driver.bench.BenchSupport.delete;
import static io.thinvol.driver.bench.BenchSupport.percentile;
import static io.thinvol.driver.bench.BenchSupport.runScript;

import csi.v1.ListVolumesRequest;
import csi.v1.NodeGetCapabilitiesRequest;
import csi.v1.NodeGetVolumeStatsRequest;
import csi.v1.ProbeRequest;
import csi.v1.VolumeCapability;
import io.thinvol.driver.client.Capabilities;
import io.thinvol.driver.client.CsiClient;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Drives a running driver through its socket and prints one {@code key value} line per figure. Not
 * a test: bench/driver-bench.sh starts the driver, runs this, and compares with raw tools.
 *
 * <p>Usage: {@code DriverBenchmark SOCKET WORKDIR MODE} where MODE is {@code ops} (create/delete
 * throughput and latency, stage/publish latency), {@code stage} (stage/publish latency only; both
 * first warm the driver as a node's driver is warm, see {@link #nodeWarmup}), {@code reclaim
 * ADDONS_SOCKET DATA_DIR [CASES]} (NodeReclaimSpace against fstrim; CASES a comma list of n1, n8,
 * n1_1g, all by default), {@code fill} (create 1,000 volumes), {@code drain} (delete them) or
 * {@code noop} (the no-op call's latency only).
 */
public final class DriverBenchmark {

  private static final int WARMUP = 50;
  private static final int NOOP_WARMUP = 5_000;
  private static final int NOOP_MEASURED = 5_000;
  private static final int CREATE_DELETE = 2_000;
  private static final int STAGE_ROUNDS = 40;
  private static final int NODE_WARMUP_ROUNDS = 3_000;

  public static void main(String[] args) throws Exception {
    Path socket = Path.of(args[0]);
    Path work = Path.of(args[1]);
    try (CsiClient csi = new CsiClient(socket)) {
      switch (args[2]) {
        case "ops" -> {
          noop(csi);
          createDelete(csi, 1);
          createDelete(csi, 8);
          nodeWarmup(csi, work);
          stageAndPublish(csi, work);
        }
        case "stage" -> {
          nodeWarmup(csi, work);
          stageAndPublish(csi, work);
        }
        case "fill" -> fill(csi, 1_000);
        case "noop" -> noop(csi);
        case "reclaim" ->
            ReclaimBenchmark.run(
                csi,
                Path.of(args[3]),
                work,
                Path.of(args[4]),
                args.length > 5 ? List.of(args[5].split(",")) : List.of("n1", "n8", "n1_1g"));
        case "drain" -> drain(csi);
        default -> throw new IllegalArgumentException("unknown mode " + args[2]);
      }
    }
  }

  private static void createDelete(CsiClient csi, int clients) throws Exception {
    AtomicInteger counter = new AtomicInteger();
    for (int i = 0; i < WARMUP; i++) {
      delete(
          csi,
          create(csi, "warm-" + clients + "-" + counter.incrementAndGet(), Capabilities.block()));
    }
    List<Long> createNanos = Collections.synchronizedList(new ArrayList<>());
    ExecutorService pool = Executors.newFixedThreadPool(clients);
    long start = System.nanoTime();
    List<Future<?>> futures = new ArrayList<>();
    for (int c = 0; c < clients; c++) {
      futures.add(
          pool.submit(
              () -> {
                for (int i = 0; i < CREATE_DELETE / clients; i++) {
                  long t0 = System.nanoTime();
                  String id =
                      create(
                          csi,
                          "bench-" + clients + "-" + counter.incrementAndGet(),
                          Capabilities.block());
                  createNanos.add(System.nanoTime() - t0);
                  delete(csi, id);
                }
                return null;
              }));
    }
    for (Future<?> future : futures) {
      future.get();
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    pool.shutdown();
    System.out.printf("create_delete_ops_per_s_c%d %.1f%n", clients, createNanos.size() / seconds);
    System.out.printf("create_p50_ms_c%d %.3f%n", clients, percentile(createNanos, 50));
    System.out.printf("create_p99_ms_c%d %.3f%n", clients, percentile(createNanos, 99));
  }

  /**
   * The fixed cost of a call: gRPC over the unix socket and the handler, no host work. Measured on
   * a warm channel in warm JVMs: both sides compile their call path only after a few thousand calls
   * (the p50 of calls 500-2,000 was twice that of calls 4,000-6,000), and the first thousands are
   * printed apart as the cost a freshly started driver pays.
   */
  private static void noop(CsiClient csi) {
    List<Long> cold = new ArrayList<>();
    List<Long> warm = new ArrayList<>();
    for (int i = 0; i < NOOP_WARMUP + NOOP_MEASURED; i++) {
      long t0 = System.nanoTime();
      csi.node().nodeGetCapabilities(NodeGetCapabilitiesRequest.getDefaultInstance());
      (i < NOOP_WARMUP ? cold : warm).add(System.nanoTime() - t0);
    }
    System.out.printf("noop_p50_ms %.3f%n", percentile(warm, 50));
    System.out.printf("noop_p99_ms %.3f%n", percentile(warm, 99));
    System.out.printf("noop_first_p50_ms %.3f%n", percentile(cold, 50));
  }

  /**
   * Brings the driver to the state a node's driver is in when a pod's volume is staged: its shared
   * call path (gRPC, protobuf, the interceptors, the catalog, the mountinfo and loop device reads)
   * warm from the calls that arrive all day long, its stage path itself cold. On a node, the
   * DaemonSet's liveness probe makes the livenessprobe sidecar call Probe every 10 s, and kubelet
   * calls NodeGetCapabilities then NodeGetVolumeStats once a minute for every published volume: a
   * node with 20 volumes serves ~2,800 calls an hour, while a stage comes when a pod lands. Without
   * this, a driver started for the benchmark (stage mode) would time its 40 stage/publish rounds
   * while still interpreting and compiling that shared path, a state a node's driver leaves within
   * its first hour. The 9,000 calls here are about three such hours. NodeGetVolumeStats asks about
   * one staged and published volume, so its mountinfo, loop device and statfs reads run too; the
   * stage and publish paths stay as cold as a node's (one volume staged and published once).
   */
  private static void nodeWarmup(CsiClient csi, Path work) {
    VolumeCapability ext4 = Capabilities.mount("ext4");
    String id = create(csi, "node-warmup", ext4, 64 * MIB);
    Path staging = work.resolve("staging-node-warmup");
    Path target = work.resolve("target-node-warmup");
    csi.stage(id, staging, ext4);
    csi.publish(id, staging, target, ext4, false);
    NodeGetVolumeStatsRequest stats =
        NodeGetVolumeStatsRequest.newBuilder()
            .setVolumeId(id)
            .setVolumePath(target.toString())
            .setStagingTargetPath(staging.toString())
            .build();
    List<Long> statsNanos = new ArrayList<>();
    for (int i = 0; i < NODE_WARMUP_ROUNDS; i++) {
      csi.identity().probe(ProbeRequest.getDefaultInstance());
      csi.node().nodeGetCapabilities(NodeGetCapabilitiesRequest.getDefaultInstance());
      long t0 = System.nanoTime();
      csi.node().nodeGetVolumeStats(stats);
      statsNanos.add(System.nanoTime() - t0);
    }
    csi.unpublish(id, target);
    csi.unstage(id, staging);
    delete(csi, id);
    System.out.printf(
        "node_warmup_stats_first_p50_ms %.3f%n", percentile(statsNanos.subList(0, 500), 50));
    System.out.printf(
        "node_warmup_stats_last_p50_ms %.3f%n",
        percentile(statsNanos.subList(statsNanos.size() - 500, statsNanos.size()), 50));
  }

  /**
   * Rounds alternate between the raw tools (bench/raw-stage.sh) and the driver on identical fresh
   * 64 MiB images, so both see the same machine: timings on a shared VM drift within minutes. The
   * raw tools run twice a round: with the loop device in the driver's default I/O mode (direct),
   * the like-for-like comparison, and buffered, for reference; the order rotates every round.
   */
  private static void stageAndPublish(CsiClient csi, Path work) throws Exception {
    VolumeCapability ext4 = Capabilities.mount("ext4");
    List<Long> stage = new ArrayList<>();
    List<Long> publish = new ArrayList<>();
    List<Long> rawStage = new ArrayList<>();
    List<Long> rawPublish = new ArrayList<>();
    List<Long> rawBufferedStage = new ArrayList<>();
    for (int i = 0; i < STAGE_ROUNDS + 3; i++) {
      long[] driver = new long[2];
      long[] raw = new long[2];
      long[] rawBuffered = new long[2];
      int round = i;
      List<Runnable> sides =
          new ArrayList<>(
              List.of(
                  () -> driverRound(csi, work, ext4, round, driver),
                  () -> rawRound(work.resolve("raw-" + round), "direct", raw),
                  () -> rawRound(work.resolve("raw-buffered-" + round), "buffered", rawBuffered)));
      Collections.rotate(sides, i);
      sides.forEach(Runnable::run);
      if (i >= 3) { // the first rounds warm up the JIT and the page cache
        stage.add(driver[0]);
        publish.add(driver[1]);
        rawStage.add(raw[0]);
        rawPublish.add(raw[1]);
        rawBufferedStage.add(rawBuffered[0]);
      }
    }
    report("stage", stage);
    report("publish", publish);
    report("raw_stage", rawStage);
    report("raw_publish", rawPublish);
    report("raw_buffered_stage", rawBufferedStage);
  }

  private static void driverRound(
      CsiClient csi, Path work, VolumeCapability ext4, int round, long[] result) {
    String id = create(csi, "stage-" + round, ext4, 64 * MIB);
    Path staging = work.resolve("staging-" + round);
    Path target = work.resolve("target-" + round);
    long t0 = System.nanoTime();
    csi.stage(id, staging, ext4);
    long t1 = System.nanoTime();
    csi.publish(id, staging, target, ext4, false);
    long t2 = System.nanoTime();
    result[0] = t1 - t0;
    result[1] = t2 - t1;
    csi.unpublish(id, target);
    csi.unstage(id, staging);
    delete(csi, id);
  }

  private static void rawRound(Path dir, String ioMode, long[] result) {
    String[] ms = runScript(List.of("bench/raw-stage.sh", dir.toString(), ioMode)).split(" ");
    result[0] = (long) (Double.parseDouble(ms[0]) * 1e6);
    result[1] = (long) (Double.parseDouble(ms[1]) * 1e6);
  }

  private static void report(String name, List<Long> nanos) {
    System.out.printf(
        "%s_p50_ms %.3f%n%s_p99_ms %.3f%n",
        name, percentile(nanos, 50), name, percentile(nanos, 99));
  }

  private static void fill(CsiClient csi, int count) {
    for (int i = 0; i < count; i++) {
      create(csi, "fill-" + i, Capabilities.block());
    }
    System.out.printf("volumes %d%n", count);
  }

  private static void drain(CsiClient csi) {
    csi.controller()
        .listVolumes(ListVolumesRequest.getDefaultInstance())
        .getEntriesList()
        .forEach(e -> delete(csi, e.getVolume().getVolumeId()));
  }
}
