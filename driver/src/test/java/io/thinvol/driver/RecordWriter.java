package io.thinvol.driver;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One process that appends numbered records to {@code records} in two directories in a strict
 * order: record n is written and fsynced on A before it is written on B. Run by {@link #start} in a
 * JVM of its own (a write to a frozen filesystem cannot be interrupted); it stops when {@code stop}
 * exists and prints how many records it wrote and the longest a pair of writes took.
 */
public final class RecordWriter implements AutoCloseable {

  public static final String FILE = "records";
  public static final int RECORD_BYTES = 13;

  private final Process process;
  private final Path stop;
  private final Path progress;

  private RecordWriter(Process process, Path stop, Path progress) {
    this.process = process;
    this.stop = stop;
    this.progress = progress;
  }

  public static void main(String[] args) throws IOException {
    Path stop = Path.of(args[2]);
    long written = 0;
    long longestNanos = 0;
    try (FileChannel a = open(Path.of(args[0]));
        FileChannel b = open(Path.of(args[1]))) {
      while (!Files.exists(stop)) {
        long start = System.nanoTime();
        append(a, written);
        append(b, written);
        longestNanos = Math.max(longestNanos, System.nanoTime() - start);
        written++;
      }
    }
    System.out.println(written + " " + TimeUnit.NANOSECONDS.toMillis(longestNanos));
  }

  private static FileChannel open(Path dir) throws IOException {
    return FileChannel.open(
        dir.resolve(FILE),
        StandardOpenOption.CREATE,
        StandardOpenOption.WRITE,
        StandardOpenOption.APPEND);
  }

  private static void append(FileChannel channel, long record) throws IOException {
    channel.write(ByteBuffer.wrap(format(record).getBytes(StandardCharsets.US_ASCII)));
    channel.force(true);
  }

  static String format(long record) {
    return String.format("%012d\n", record);
  }

  /** Starts the writer on the two directories; {@code work} holds its stop file. */
  public static RecordWriter start(Path a, Path b, Path work) throws IOException {
    Path stop = work.resolve("stop-writer");
    Files.deleteIfExists(stop);
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process process =
        new ProcessBuilder(
                java,
                "-cp",
                System.getProperty("java.class.path"),
                RecordWriter.class.getName(),
                a.toString(),
                b.toString(),
                stop.toString())
            .redirectErrorStream(true)
            .start();
    return new RecordWriter(process, stop, b.resolve(FILE));
  }

  /** Waits until B holds at least {@code records} records (the writer is running). */
  public void awaitRecords(long records) throws InterruptedException, IOException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!Files.exists(progress) || Files.size(progress) < records * RECORD_BYTES) {
      if (!process.isAlive() || System.nanoTime() > deadline) {
        throw new AssertionError("the record writer stopped making progress");
      }
      Thread.sleep(10);
    }
  }

  public long recordsOnB() throws IOException {
    return Files.size(progress) / RECORD_BYTES;
  }

  /** Stops the writer; returns {records written, longest pair of writes in ms}. */
  public long[] stop() throws IOException, InterruptedException {
    Files.createFile(stop);
    if (!process.waitFor(60, TimeUnit.SECONDS)) {
      throw new AssertionError("the record writer did not stop");
    }
    try (BufferedReader out =
        new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      String[] line = out.readLine().trim().split(" ");
      return new long[] {Long.parseLong(line[0]), Long.parseLong(line[1])};
    }
  }

  /**
   * The number of records in a restored {@code records} file, after checking they are exactly
   * records 0..n-1 in order (no gap, no torn or foreign record).
   */
  public static long contiguousRecords(Path file) throws IOException {
    if (!Files.exists(file)) {
      return 0;
    }
    List<String> lines = new ArrayList<>(Files.readAllLines(file, StandardCharsets.US_ASCII));
    for (int i = 0; i < lines.size(); i++) {
      if (!(lines.get(i) + "\n").equals(format(i))) {
        throw new AssertionError(file + " holds '" + lines.get(i) + "' as record " + i);
      }
    }
    return lines.size();
  }

  @Override
  public void close() throws Exception {
    if (process.isAlive()) {
      Files.deleteIfExists(stop);
      Files.createFile(stop);
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
      }
    }
  }
}
