package io.thinvol.driver;

import csi.v1.ProbeRequest;
import io.thinvol.driver.client.CsiClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** The driver in a JVM of its own, so a test can kill it with SIGKILL like a crash would. */
public final class DriverProcess implements AutoCloseable {

  private final Process process;
  private final CsiClient client;

  private DriverProcess(Process process, CsiClient client) {
    this.process = process;
    this.client = client;
  }

  public static DriverProcess start(Path root, String nodeId)
      throws IOException, InterruptedException {
    return start(root, nodeId, "io.thinvol.driver.cli.ThinvolCommand");
  }

  /** As above with another main class that takes the same arguments (a test's variant). */
  public static DriverProcess start(Path root, String nodeId, String mainClass)
      throws IOException, InterruptedException {
    Path socket = root.resolve("csi.sock");
    Files.deleteIfExists(socket);
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process process =
        new ProcessBuilder(
                List.of(
                    java,
                    "-cp",
                    System.getProperty("java.class.path"),
                    mainClass,
                    "driver",
                    "--csi-endpoint=unix://" + socket,
                    "--driver-name=test.thinvol.io",
                    "--node-id=" + nodeId,
                    "--data-dir=" + root.resolve("data"),
                    "--addons-endpoint=unix://" + root.resolve("addons.sock"),
                    "--addons-port=0"))
            .redirectErrorStream(true)
            .redirectOutput(root.resolve("driver.log").toFile())
            .start();
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (!Files.exists(socket)) {
      if (!process.isAlive() || System.nanoTime() > deadline) {
        process.destroyForcibly();
        throw new IllegalStateException(
            "driver did not start: " + Files.readString(root.resolve("driver.log")));
      }
      Thread.sleep(50);
    }
    CsiClient client = new CsiClient(socket);
    client.identity().withWaitForReady().probe(ProbeRequest.getDefaultInstance());
    return new DriverProcess(process, client);
  }

  public CsiClient csi() {
    return client;
  }

  /** SIGKILL: no shutdown hook runs, nothing is cleaned up. */
  public void kill() throws InterruptedException {
    client.close();
    process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
  }

  /** SIGTERM: the driver shuts down gracefully (SIGKILL after 30 s). */
  @Override
  public void close() {
    client.close();
    process.destroy();
    try {
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }
}
