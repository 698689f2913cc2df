package io.thinvol.driver;

import csi.v1.ProbeRequest;
import io.grpc.StatusRuntimeException;
import io.thinvol.driver.client.AddonsClient;
import io.thinvol.driver.client.CsiClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** The driver in a JVM of its own, so a test can kill it with SIGKILL like a crash would. */
public final class DriverProcess implements AutoCloseable {

  private static final String MAIN = "io.thinvol.driver.cli.ThinvolCommand";

  /** The system property whose flags the driver's JVM is started with. */
  public static final String JVM_FLAGS = "thinvol.driver.jvm-flags";

  /**
   * The drivers' class path, where it is not the test's own: a benchmark runs another commit's
   * driver beside this one's (bench/copy-bench.sh's COPY_BENCH_AGAINST).
   */
  public static final String CLASS_PATH = "thinvol.driver.classpath";

  private final Process process;
  private final CsiClient client;
  private final AddonsClient addons;

  private DriverProcess(Process process, CsiClient client, AddonsClient addons) {
    this.process = process;
    this.client = client;
    this.addons = addons;
  }

  public static DriverProcess start(Path root, String nodeId)
      throws IOException, InterruptedException {
    return start(root, nodeId, MAIN, List.of(), root.resolve("data"));
  }

  /** As above with another main class that takes the same arguments (a test's variant). */
  public static DriverProcess start(Path root, String nodeId, String mainClass)
      throws IOException, InterruptedException {
    return start(root, nodeId, mainClass, List.of(), root.resolve("data"));
  }

  /**
   * The driver run by {@code wrapper} (a command that ends by executing its arguments, such as
   * {@code unshare} or {@code strace}) with its data dir at {@code dataDir}. Its sockets and log
   * are in {@code root}.
   */
  public static DriverProcess start(Path root, String nodeId, List<String> wrapper, Path dataDir)
      throws IOException, InterruptedException {
    return start(root, nodeId, MAIN, wrapper, dataDir);
  }

  /**
   * The driver with {@code arguments} added (an {@code --addons-port} among them replaces the
   * default, none) and {@code environment} set, as a DaemonSet's container spec gives them.
   */
  public static DriverProcess start(
      Path root, String nodeId, List<String> arguments, Map<String, String> environment)
      throws IOException, InterruptedException {
    return start(root, nodeId, MAIN, List.of(), root.resolve("data"), arguments, environment);
  }

  /** As above with another main class that takes the same arguments and {@code environment}. */
  public static DriverProcess start(
      Path root,
      String nodeId,
      String mainClass,
      List<String> wrapper,
      Path dataDir,
      Map<String, String> environment)
      throws IOException, InterruptedException {
    return start(root, nodeId, mainClass, wrapper, dataDir, List.of(), environment);
  }

  /**
   * What the driver jar's manifest gives {@code java -jar} (Netty's direct buffers,
   * cli/NettyBuffers), then the JVM flags of {@value #JVM_FLAGS}, space-separated: a benchmark runs
   * the drivers as the image does (packaging/image/thinvol-driver), or records them with JFR.
   */
  private static List<String> jvmFlags() {
    List<String> flags = new ArrayList<>(List.of("--add-opens=java.base/java.nio=ALL-UNNAMED"));
    String given = System.getProperty(JVM_FLAGS, "").strip();
    if (!given.isEmpty()) {
      flags.addAll(List.of(given.split("\\s+")));
    }
    return flags;
  }

  private static DriverProcess start(
      Path root, String nodeId, String mainClass, List<String> wrapper, Path dataDir)
      throws IOException, InterruptedException {
    return start(root, nodeId, mainClass, wrapper, dataDir, List.of(), Map.of());
  }

  private static DriverProcess start(
      Path root,
      String nodeId,
      String mainClass,
      List<String> wrapper,
      Path dataDir,
      List<String> arguments,
      Map<String, String> environment)
      throws IOException, InterruptedException {
    Path socket = root.resolve("csi.sock");
    Files.deleteIfExists(socket);
    Files.deleteIfExists(root.resolve("addons.sock"));
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> argv = new ArrayList<>(wrapper);
    argv.add(java);
    argv.addAll(jvmFlags());
    argv.addAll(
        List.of(
            "-cp",
            System.getProperty(CLASS_PATH, System.getProperty("java.class.path")),
            mainClass,
            "driver",
            "--csi-endpoint=unix://" + socket,
            "--driver-name=test.thinvol.io",
            "--node-id=" + nodeId,
            "--data-dir=" + dataDir,
            "--addons-endpoint=unix://" + root.resolve("addons.sock")));
    if (arguments.stream().noneMatch(a -> a.startsWith("--addons-port="))) {
      argv.add("--addons-port=0");
    }
    argv.addAll(arguments);
    ProcessBuilder builder = new ProcessBuilder(argv);
    builder.environment().putAll(environment);
    Process process =
        builder
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(root.resolve("driver.log").toFile()))
            .start();
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (!Files.exists(socket)) {
      if (!process.isAlive() || System.nanoTime() > deadline) {
        process.destroyForcibly();
        throw new IllegalStateException(
            "driver did not start: " + Files.readString(root.resolve("driver.log")));
      }
      Thread.sleep(50);
    }
    CsiClient client = new CsiClient(socket);
    try {
      // bounded: a driver that dies after making its socket would keep an unbounded wait waiting
      client
          .identity()
          .withWaitForReady()
          .withDeadlineAfter(60, TimeUnit.SECONDS)
          .probe(ProbeRequest.getDefaultInstance());
    } catch (StatusRuntimeException e) {
      client.close();
      process.destroyForcibly();
      throw new IllegalStateException(
          "driver does not answer: " + Files.readString(root.resolve("driver.log")), e);
    }
    return new DriverProcess(process, client, new AddonsClient(root.resolve("addons.sock")));
  }

  public CsiClient csi() {
    return client;
  }

  /** The CSI-Addons services (ReclaimSpace) on the addons socket. */
  public AddonsClient addons() {
    return addons;
  }

  /** SIGKILL: no shutdown hook runs, nothing is cleaned up. */
  public void kill() throws InterruptedException {
    client.close();
    addons.close();
    List<ProcessHandle> driver = withWrapped();
    driver.forEach(ProcessHandle::destroyForcibly);
    awaitExit(driver);
  }

  /** SIGTERM: the driver shuts down gracefully (SIGKILL after 30 s). */
  @Override
  public void close() {
    client.close();
    addons.close();
    List<ProcessHandle> driver = withWrapped();
    driver.forEach(ProcessHandle::destroy);
    try {
      if (!awaitExit(driver)) {
        driver.forEach(ProcessHandle::destroyForcibly);
        awaitExit(driver);
      }
    } catch (InterruptedException e) {
      driver.forEach(ProcessHandle::destroyForcibly);
      Thread.currentThread().interrupt();
    }
  }

  /** The process and what it started: a wrapper such as strace forks the driver, not execs it. */
  private List<ProcessHandle> withWrapped() {
    List<ProcessHandle> all = new ArrayList<>(process.descendants().toList());
    all.add(process.toHandle());
    return all;
  }

  private static boolean awaitExit(List<ProcessHandle> processes) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    try {
      for (ProcessHandle handle : processes) {
        handle.onExit().get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      }
      return true;
    } catch (TimeoutException e) {
      return false;
    } catch (ExecutionException e) {
      throw new IllegalStateException(e);
    }
  }
}
