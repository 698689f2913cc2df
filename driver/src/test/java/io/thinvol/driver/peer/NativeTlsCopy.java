package io.thinvol.driver.peer;

import io.thinvol.driver.host.ImageExtents;
import io.thinvol.driver.host.ProcessCommandRunner;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The raw tools' copy over the same kind of transport, for the copy benchmark: the image's
 * allocated bytes sent by one {@code socat} to another over TLS on loopback (OpenSSL, 256 KiB reads
 * and writes) and written to a file made durable, as a driver's copy is. Only the bytes the drivers
 * send cross, so the two copies move the same data; socat knows nothing of holes, so it reads them
 * from a file holding the allocated ranges back to back, made beforehand. Absent where socat or
 * openssl is not installed.
 */
final class NativeTlsCopy implements AutoCloseable {

  private static final int BUFFER = 256 << 10;
  private static final Duration LIMIT = Duration.ofMinutes(5);
  private static final ProcessCommandRunner HOST = new ProcessCommandRunner();
  private static final long CLOCK_TICKS = 100; // USER_HZ, what /proc counts in on Linux

  private final Path work;
  private final Path data;
  private final Path identity;
  private final Path received;

  private NativeTlsCopy(Path work) {
    this.work = work;
    this.data = work.resolve("allocated.bin");
    this.identity = work.resolve("identity.pem");
    this.received = work.resolve("received.bin");
  }

  /** The reference for an image, or empty with why not, said on standard error. */
  static Optional<NativeTlsCopy> of(Path image) throws Exception {
    for (String tool : List.of("socat", "openssl")) {
      if (!onPath(tool)) {
        System.err.println("no " + tool + " on PATH: the native TLS copy is left out");
        return Optional.empty();
      }
    }
    NativeTlsCopy copy = new NativeTlsCopy(Files.createTempDirectory("native-tls-copy"));
    copy.writeAllocatedRanges(image);
    Path key = copy.work.resolve("key.pem");
    Path cert = copy.work.resolve("cert.pem");
    HOST.run(
        LIMIT,
        List.of(
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:prime256v1",
            "-nodes",
            "-days",
            "1",
            "-subj",
            "/CN=native-tls-copy",
            "-keyout",
            key.toString(),
            "-out",
            cert.toString()));
    Files.write(copy.identity, Files.readAllBytes(key));
    Files.write(copy.identity, Files.readAllBytes(cert), StandardOpenOption.APPEND);
    return Optional.of(copy);
  }

  /** The bytes each copy sends. */
  long bytes() throws IOException {
    return Files.size(data);
  }

  /**
   * One copy, from the sender's start to the received file synced: its time and the CPU time of the
   * two socat processes (and the sync), in nanoseconds.
   */
  Timed time() throws Exception {
    Files.deleteIfExists(received); // freeing the last copy's blocks is not part of this one
    long cpuBefore = reapedChildrenCpuNanos();
    long start = System.nanoTime();
    copy();
    long took = System.nanoTime() - start;
    return new Timed(took, reapedChildrenCpuNanos() - cpuBefore);
  }

  /** A copy's wall time and CPU time. */
  record Timed(long nanos, long cpuNanos) {}

  private void copy() throws Exception {
    int port;
    try (ServerSocket free = new ServerSocket(0)) {
      port = free.getLocalPort();
    }
    Process receiver =
        new ProcessBuilder(
                "socat",
                "-b",
                "" + BUFFER,
                "-u",
                "OPENSSL-LISTEN:" + port + ",bind=127.0.0.1,reuseaddr,verify=0,cert=" + identity,
                "CREATE:" + received)
            .inheritIO()
            .start();
    try {
      awaitListening(port);
      HOST.run(
          LIMIT,
          List.of(
              "socat",
              "-b",
              "" + BUFFER,
              "-u",
              "FILE:" + data,
              "OPENSSL:127.0.0.1:" + port + ",verify=0"));
      if (!receiver.waitFor(LIMIT.toMinutes(), TimeUnit.MINUTES) || receiver.exitValue() != 0) {
        throw new IllegalStateException("the receiving socat failed");
      }
      HOST.run(LIMIT, List.of("sync", "--", received.toString(), work.toString()));
      if (Files.size(received) != Files.size(data)) {
        throw new IllegalStateException("socat received " + Files.size(received) + " bytes");
      }
    } finally {
      receiver.destroyForcibly();
    }
  }

  /**
   * The user and system time of this JVM's children that it has waited for (cutime and cstime in
   * /proc/self/stat): the socat processes once they exited, the drivers still running not.
   */
  private static long reapedChildrenCpuNanos() throws IOException {
    String stat = Files.readString(Path.of("/proc/self/stat"));
    String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    long ticks = Long.parseLong(fields[13]) + Long.parseLong(fields[14]);
    return ticks * 1_000_000_000L / CLOCK_TICKS;
  }

  private void writeAllocatedRanges(Path image) throws IOException {
    ByteBuffer buffer = ByteBuffer.allocateDirect(BUFFER);
    try (ImageExtents extents = ImageExtents.open(image);
        FileChannel out =
            FileChannel.open(data, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      long at = extents.nextData(0);
      while (at >= 0 && at < extents.size()) {
        long end = extents.nextHole(at);
        for (long from = at; from < end; from += buffer.limit()) {
          buffer.clear().limit((int) Math.min(BUFFER, end - from));
          extents.read(buffer, from);
          buffer.flip();
          while (buffer.hasRemaining()) {
            out.write(buffer);
          }
        }
        at = extents.nextData(end);
      }
      out.force(true);
    }
  }

  /** The receiver listens once a connection to its port is taken (socat then exits on its own). */
  private static void awaitListening(int port) throws Exception {
    for (int tries = 0; tries < 200; tries++) {
      if (listening(port)) {
        return;
      }
      Thread.sleep(10);
    }
    throw new IllegalStateException("socat does not listen on port " + port);
  }

  private static boolean listening(int port) throws IOException {
    String hex = String.format(":%04X ", port);
    // State 0A is LISTEN in /proc/net/tcp; looking there does not use up socat's one connection.
    try (Stream<String> lines = Files.lines(Path.of("/proc/net/tcp"))) {
      return lines.anyMatch(l -> l.contains(hex) && l.split("\\s+")[4].equals("0A"));
    }
  }

  private static boolean onPath(String tool) {
    return Stream.of(System.getenv("PATH").split(":"))
        .anyMatch(dir -> Files.isExecutable(Path.of(dir, tool)));
  }

  @Override
  public void close() throws IOException {
    try (Stream<Path> files = Files.walk(work)) {
      for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(file);
      }
    }
  }
}
