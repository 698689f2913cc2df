package io.thinvol.driver.bench;

import csi.v1.DeleteSnapshotRequest;
import csi.v1.VolumeCapability;
import io.thinvol.driver.client.Capabilities;
import io.thinvol.driver.client.CsiClient;
import io.thinvol.driver.store.DataLayout;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * The cost of a snapshot through a running driver's CreateSnapshot, next to the raw copies of the
 * same image in the same data dir: time, and the bytes the data dir's filesystem lost. Not a test:
 * bench/snapshot-bench.sh starts a driver per data dir and runs this; it prints table rows.
 *
 * <p>Usage: {@code SnapshotBenchmark SOCKET WORKDIR DATADIR LABEL RUNS}.
 */
public final class SnapshotBenchmark {

  private static final long MIB = 1L << 20;
  private static final long VOLUME = 1024 * MIB;
  private static final long WRITTEN = 512 * MIB;
  private static final VolumeCapability RAW = Capabilities.block();

  public static void main(String[] args) throws Exception {
    Path socket = Path.of(args[0]);
    Path work = Path.of(args[1]);
    Path dataDir = Path.of(args[2]);
    String label = args[3];
    int runs = Integer.parseInt(args[4]);
    try (CsiClient csi = new CsiClient(socket)) {
      String volume = csi.createVolume("snapshot-bench", VOLUME, RAW, null);
      fill(csi, volume, work);
      Path image = new DataLayout(dataDir).volumeImage(volume);
      Path copy = dataDir.resolve("raw-copy.img");
      List<String> driver = new ArrayList<>();
      List<String> sparse = new ArrayList<>();
      List<String> reflink = new ArrayList<>();
      for (int run = 1; run <= runs; run++) {
        String name = "bench-" + run;
        String[] id = new String[1];
        Step snapshot = () -> id[0] = csi.createSnapshot(name, volume);
        Step sparseCopy = () -> copy(image, copy, "--sparse=always", "--reflink=never");
        // Alternated, so that neither always reads the source first (its pages still cold)
        if (run % 2 == 1) {
          driver.add(measure(dataDir, snapshot));
          sparse.add(measure(dataDir, sparseCopy));
        } else {
          sparse.add(measure(dataDir, sparseCopy));
          driver.add(measure(dataDir, snapshot));
        }
        csi.controller()
            .deleteSnapshot(DeleteSnapshotRequest.newBuilder().setSnapshotId(id[0]).build());
        Files.delete(copy);
        reflink.add(measure(dataDir, () -> copy(image, copy, "--reflink=always")));
        Files.deleteIfExists(copy);
      }
      row(label, "driver CreateSnapshot", driver);
      row(label, "raw cp --sparse=always", sparse);
      row(label, "raw cp --reflink=always", reflink);
      csi.deleteVolume(volume);
    }
  }

  private interface Step {
    void run() throws Exception;
  }

  /** "time ms / extra MiB" of one step, with the data dir's writes settled before and after. */
  private static String measure(Path dataDir, Step step) throws Exception {
    long usedBefore = settledUsage(dataDir);
    long start = System.nanoTime();
    try {
      step.run();
    } catch (IOException e) {
      String message = e.getMessage();
      return "fails (" + message.substring(message.lastIndexOf(": ") + 2) + ")";
    }
    long millis = (System.nanoTime() - start) / 1_000_000;
    long extra = settledUsage(dataDir) - usedBefore;
    return String.format("%d ms / %.1f MiB", millis, extra / (double) MIB);
  }

  /**
   * The bytes used on the data dir's filesystem once it has settled: xfs frees the blocks of a
   * deleted file in the background, so one reading after a syncfs can still move.
   */
  private static long settledUsage(Path dataDir) throws Exception {
    FileStore store = Files.getFileStore(dataDir);
    long previous = -1;
    for (int reading = 0; reading < 100; reading++) {
      run("sync", "-f", dataDir.toString());
      long used = store.getTotalSpace() - store.getUnallocatedSpace();
      if (used == previous) {
        return used;
      }
      previous = used;
      Thread.sleep(200);
    }
    throw new IllegalStateException("the usage of " + dataDir + " does not settle");
  }

  /** A raw copy made durable as the driver makes its snapshots (file and directory synced). */
  public static void copy(Path from, Path to, String... options) throws Exception {
    List<String> argv = new ArrayList<>(List.of("cp"));
    argv.addAll(List.of(options));
    argv.addAll(List.of("--", from.toString(), to.toString()));
    run(argv.toArray(String[]::new));
    run("sync", "--", to.toString(), to.getParent().toString());
  }

  /** 512 MiB of random data in every other MiB of the volume, through its block device. */
  public static void fill(CsiClient csi, String volume, Path work) throws Exception {
    Path staging = work.resolve("staging");
    Path device = work.resolve("device");
    csi.stage(volume, staging, RAW);
    csi.publish(volume, staging, device, RAW, false);
    Random random = new Random(42);
    byte[] chunk = new byte[(int) MIB];
    try (FileChannel channel = FileChannel.open(device, StandardOpenOption.WRITE)) {
      for (long at = 0; at < 2 * WRITTEN; at += 2 * MIB) {
        random.nextBytes(chunk);
        ByteBuffer buffer = ByteBuffer.wrap(chunk);
        while (buffer.hasRemaining()) {
          channel.write(buffer, at + buffer.position());
        }
      }
      channel.force(true);
    }
    // detached, so that a data dir without reflinks may copy it (a raw copy needs the same)
    csi.unpublish(volume, device);
    csi.unstage(volume, staging);
  }

  private static void run(String... argv) throws Exception {
    Process process = new ProcessBuilder(argv).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes()).strip();
    if (process.waitFor() != 0) {
      throw new IOException(String.join(" ", argv) + ": " + output);
    }
  }

  private static void row(String label, String method, List<String> cells) {
    System.out.println("| " + label + " | " + method + " | " + String.join(" | ", cells) + " |");
  }
}
