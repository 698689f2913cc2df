package io.thinvol.driver.peer;

import csi.v1.CapacityRange;
import csi.v1.CreateVolumeRequest;
import csi.v1.VolumeCapability;
import csi.v1.VolumeContentSource;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.thinvol.driver.bench.SnapshotBenchmark;
import io.thinvol.driver.client.Capabilities;
import io.thinvol.driver.client.ContentSources;
import io.thinvol.driver.client.CsiClient;
import io.thinvol.driver.host.FileStats;
import io.thinvol.driver.host.ProcessCommandRunner;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * A cross-node clone and a cross-node restore through two real drivers (node-a holds a 1 GiB block
 * volume with 512 MiB of random data in every other MiB (as {@link SnapshotBenchmark} writes it),
 * and a snapshot of it; node-b creates volumes from them), next to {@code cp --sparse=always} of
 * the same image on the same disk, and next to the raw tools' copy of the same bytes over TLS
 * ({@link NativeTlsCopy}). Node b reaches node a through a relay that counts the bytes node a
 * sends. Not a test: bench/copy-bench.sh runs it (in the peer test package, for the two-driver
 * fixture); it prints table rows.
 *
 * <p>Usage: {@code CrossNodeCopyBenchmark RUNS}.
 */
public final class CrossNodeCopyBenchmark {

  private static final long MIB = 1L << 20;
  private static final long VOLUME = 1024 * MIB;
  private static final VolumeCapability RAW = Capabilities.block();
  private static final Pattern NODE_ID = Pattern.compile("--node-id=([^\\x00]+)");

  public static void main(String[] args) throws Exception {
    int runs = Integer.parseInt(args[0]);
    KubernetesMockServer server = new KubernetesMockServer(false);
    server.init();
    FileStats stats = new FileStats(new ProcessCommandRunner());
    try (PeerDrivers nodes = new PeerDrivers(server, List.of("node-a", "node-b"));
        ByteCountingProxy relay = new ByteCountingProxy(nodes.port("node-a"))) {
      CopySources sources = new CopySources(server);
      CsiClient a = nodes.driver("node-a").csi();
      String origin = a.createVolume("origin", VOLUME, RAW, null);
      SnapshotBenchmark.fill(a, origin, nodes.dir("node-a"));
      String snapshot = a.createSnapshot("snap", origin);
      nodes.persistentVolumes(Map.of(origin, "node-a"));
      int direct = nodes.port("node-a");
      nodes.standIn("node-a", relay.port()); // node-b reaches node-a through the relay
      nodes.servePodList();
      sources.cloneOf("clone", "origin", origin);
      sources.restoreOf("restored", "snap", snapshot);
      Path image = nodes.image("node-a", origin);
      long allocated = stats.allocatedBytes(image);
      Path rawCopy = nodes.dir("node-b").resolve("data/raw-copy.img");

      // The bytes on the wire, through the relay; then the rate, directly.
      System.out.println(
          "| copy | bytes sent ÷ allocated bytes of the source | node-b allocates |");
      System.out.println("|---|---|---|");
      for (String kind : List.of("clone", "restore")) {
        relay.takeBytesFromTarget();
        String made = create(nodes, kind + "-bytes", source(kind, origin, snapshot), claim(kind));
        long wire = relay.takeBytesFromTarget();
        System.out.printf(
            "| %s | %.1f MiB ÷ %.1f MiB = %.3f | %.1f MiB |%n",
            kind,
            wire / (double) MIB,
            allocated / (double) MIB,
            wire / (double) allocated,
            stats.allocatedBytes(nodes.image("node-b", made)) / (double) MIB);
        nodes.driver("node-b").csi().deleteVolume(made);
      }
      nodes.standIn("node-a", direct);
      Optional<NativeTlsCopy> socat = NativeTlsCopy.of(image);
      System.out.println();
      System.out.println(
          "| run | copy | pull | CPU of both drivers | socat over TLS, the same bytes | CPU of"
              + " both socats | rate ÷ socat's | cp --sparse=always | rate ÷ cp's |");
      System.out.println("|---|---|---|---|---|---|---|---|---|");
      double gib = allocated / (double) (1L << 30);
      for (int run = 1; run <= runs; run++) {
        for (String kind : List.of("clone", "restore")) {
          String name = kind + "-" + run;
          String[] made = new String[1];
          Runnable pull =
              () -> made[0] = create(nodes, name, source(kind, origin, snapshot), claim(kind));
          Runnable cp =
              () -> {
                try {
                  SnapshotBenchmark.copy(image, rawCopy, "--sparse=always", "--reflink=never");
                } catch (Exception e) {
                  throw new IllegalStateException(e);
                }
              };
          long pullNanos;
          long cpNanos;
          NativeTlsCopy.Timed raw;
          long cpuBefore = driversCpuNanos();
          long cpuAfter;
          // Alternated, so that neither always reads the source's pages first.
          if (run % 2 == 1) {
            pullNanos = time(pull);
            cpuAfter = driversCpuNanos();
            cpNanos = time(cp);
            raw = socat.isPresent() ? socat.get().time() : null;
          } else {
            raw = socat.isPresent() ? socat.get().time() : null;
            cpNanos = time(cp);
            cpuBefore = driversCpuNanos();
            pullNanos = time(pull);
            cpuAfter = driversCpuNanos();
          }
          double cpu = (cpuAfter - cpuBefore) / 1e9;
          System.out.printf(
              "| %d | %s | %.1f s, %.0f MiB/s | %.1f s, %.2f s/GiB | %s | %.1f s, %.0f MiB/s |"
                  + " %.2f |%n",
              run,
              kind,
              pullNanos / 1e9,
              allocated / (double) MIB / (pullNanos / 1e9),
              cpu,
              cpu / gib,
              raw == null
                  ? "not installed | | "
                  : String.format(
                      "%.1f s, %.0f MiB/s | %.1f s, %.2f s/GiB | %.2f",
                      raw.nanos() / 1e9,
                      socat.get().bytes() / (double) MIB / (raw.nanos() / 1e9),
                      raw.cpuNanos() / 1e9,
                      raw.cpuNanos() / 1e9 / gib,
                      raw.nanos() / (double) pullNanos),
              cpNanos / 1e9,
              allocated / (double) MIB / (cpNanos / 1e9),
              cpNanos / (double) pullNanos);
          nodes.driver("node-b").csi().deleteVolume(made[0]);
          Files.deleteIfExists(rawCopy);
        }
      }
      if (socat.isPresent()) {
        socat.get().close();
      }
      // The image's JVMs hand freed C heap back every 5 s (-XX:TrimNativeHeapInterval).
      Thread.sleep(6_000);
      System.out.println();
      System.out.println("drivers' resident memory 6 s after the pulls: " + driversRss());
    } finally {
      server.destroy();
    }
  }

  /** Each driver process's (this JVM's children's) VmRSS, by its node. */
  static String driversRss() {
    return ProcessHandle.current()
        .children()
        .map(driver -> String.format("%s %s", nodeOf(driver.pid()), rssOf(driver.pid())))
        .sorted()
        .collect(Collectors.joining(", "));
  }

  private static String nodeOf(long pid) {
    try {
      Matcher named = NODE_ID.matcher(Files.readString(Path.of("/proc", "" + pid, "cmdline")));
      return named.find() ? named.group(1) : "pid " + pid;
    } catch (IOException e) {
      return "pid " + pid;
    }
  }

  private static String rssOf(long pid) {
    try {
      for (String line : Files.readAllLines(Path.of("/proc", "" + pid, "status"))) {
        if (line.startsWith("VmRSS:")) {
          return String.format("%.1f MiB", Long.parseLong(line.replaceAll("[^0-9]", "")) / 1024.0);
        }
      }
      return "?";
    } catch (IOException e) {
      return "? (" + e.getMessage() + ")";
    }
  }

  private static VolumeContentSource source(String kind, String origin, String snapshot) {
    return kind.equals("clone")
        ? ContentSources.volumeSource(origin)
        : ContentSources.snapshotSource(snapshot);
  }

  private static String claim(String kind) {
    return kind.equals("clone") ? "clone" : "restored";
  }

  private static String create(
      PeerDrivers nodes, String name, VolumeContentSource source, String claim) {
    return nodes
        .driver("node-b")
        .csi()
        .controller()
        .createVolume(
            CreateVolumeRequest.newBuilder()
                .setName(name)
                .setCapacityRange(CapacityRange.newBuilder().setRequiredBytes(VOLUME))
                .addVolumeCapabilities(RAW)
                .setVolumeContentSource(source)
                .putAllParameters(CopySources.parametersOf(claim))
                .build())
        .getVolume()
        .getVolumeId();
  }

  /** CPU time of the driver processes (this JVM's children), user and system. */
  private static long driversCpuNanos() {
    return ProcessHandle.current()
        .children()
        .mapToLong(p -> p.info().totalCpuDuration().map(d -> d.toNanos()).orElse(0L))
        .sum();
  }

  private static long time(Runnable step) {
    long start = System.nanoTime();
    step.run();
    return System.nanoTime() - start;
  }
}
