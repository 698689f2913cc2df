package io.thinvol.operator;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.thinvol.addons.ClusterFixtures;
import io.thinvol.api.BackendNames;
import io.thinvol.driver.client.CsiClient;
import io.thinvol.driver.host.FileStats;
import io.thinvol.driver.host.HostCleanup;
import io.thinvol.driver.host.ProcessCommandRunner;
import io.thinvol.driver.store.DataLayout;
import io.thinvol.testing.PlayedControllers;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * One node's driver as the DaemonSet runs it, in a process of its own on this host: its own data
 * dir, the CSI-Addons TLS port with the certificate the operator generated, the node
 * ServiceAccount's projected token for calls to its peers, and its Ready pod in the cluster at
 * 127.0.0.1. Its TokenReviews and look-ups go to the test's API server. Releasing it undoes what
 * was registered with {@link #onRelease}, stops the driver and releases every mount and loop device
 * under its directory.
 */
final class NodeDriver implements AutoCloseable {

  /** System property: JVM flags for the driver process (none by default). */
  static final String JVM_FLAGS = "thinvol.driver.jvm-flags";

  private final String node;
  private final Path root;
  private final List<AutoCloseable> closing = new ArrayList<>();
  private final FileStats stats = new FileStats(new ProcessCommandRunner());
  private CsiClient csi;
  private int port;

  private NodeDriver(String node, Path root) {
    this.node = node;
    this.root = root;
  }

  /**
   * Starts {@code node}'s driver of {@code backend} in {@code root}.
   *
   * @param tls the backend's CSI-Addons Secret, as the operator made it
   */
  static NodeDriver start(
      KubernetesClient client, String namespace, String backend, String node, Path root, Secret tls)
      throws Exception {
    NodeDriver driver = new NodeDriver(node, Files.createDirectories(root));
    try {
      driver.run(client, namespace, backend, tls);
      return driver;
    } catch (Exception e) {
      driver.close();
      throw e;
    }
  }

  private void run(KubernetesClient client, String namespace, String backend, Secret tls)
      throws IOException, InterruptedException {
    // as the kubelet mounts the Secret and the projected token
    for (String key : List.of("tls.crt", "tls.key")) {
      Files.write(root.resolve(key), Base64.getDecoder().decode(tls.getData().get(key)));
    }
    Files.writeString(root.resolve("token"), ReviewedTokens.nodeToken(backend));
    try (ServerSocket free = new ServerSocket(0)) {
      port = free.getLocalPort();
    }
    ProcessBuilder command =
        new ProcessBuilder(commandLine(namespace, backend))
            .redirectErrorStream(true)
            .redirectOutput(root.resolve("driver.log").toFile());
    // outside a Pod the driver calls the API server it is given (TokenReviews, peer look-ups)
    command.environment().put("THINVOL_KUBE_API_URL", client.getMasterUrl().toString());
    command.environment().put("POD_NAMESPACE", namespace);
    Process process = command.start();
    closing.add(
        () -> {
          process.destroy();
          if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
          }
        });
    awaitListening(process);
    csi = new CsiClient(root.resolve("csi.sock"));
    closing.add(csi);
    PlayedControllers.createWithStatus(
        client, ClusterFixtures.driverPod(namespace, backend, node, "127.0.0.1", port));
  }

  private List<String> commandLine(String namespace, String backend) {
    List<String> commandLine = new ArrayList<>();
    commandLine.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    // a benchmark runs the driver with the image's JVM flags, as it ships
    String flags = System.getProperty(JVM_FLAGS, "").strip();
    if (!flags.isEmpty()) {
      commandLine.addAll(List.of(flags.split("\\s+")));
    }
    String podSelector =
        new TreeMap<>(
                ClusterFixtures.driverPod(namespace, backend, node, "", 0)
                    .getMetadata()
                    .getLabels())
            .entrySet().stream()
                .map(label -> label.getKey() + "=" + label.getValue())
                .collect(Collectors.joining(","));
    commandLine.addAll(
        List.of(
            "-cp",
            System.getProperty("java.class.path"),
            "io.thinvol.driver.cli.ThinvolCommand",
            "driver",
            "--csi-endpoint=unix://" + root.resolve("csi.sock"),
            "--driver-name=" + BackendNames.driver(backend),
            "--node-id=" + node,
            "--data-dir=" + root.resolve("data"),
            "--addons-endpoint=unix://" + root.resolve("addons.sock"),
            "--addons-port=" + port,
            "--addons-tls-cert=" + root.resolve("tls.crt"),
            "--addons-tls-key=" + root.resolve("tls.key"),
            "--addons-allowed-serviceaccounts=" + namespace + ":thinvol-operator",
            "--peer-token-file=" + root.resolve("token"),
            "--peer-pod-selector=" + podSelector,
            "--peer-serviceaccount=" + namespace + ":" + BackendNames.nodeDaemonSet(backend),
            "--http-port=0"));
    return commandLine;
  }

  /** The driver opens its TLS port after its CSI socket: its peers can call it once both are. */
  private void awaitListening(Process process) throws IOException, InterruptedException {
    // a JVM starting on a machine shared with builds can take more than 30 s
    long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
    while (!Files.exists(root.resolve("csi.sock")) || !accepts(port)) {
      if (!process.isAlive() || System.nanoTime() > deadline) {
        throw new IllegalStateException(
            node + "'s driver did not start: " + Files.readString(root.resolve("driver.log")));
      }
      Thread.sleep(50);
    }
  }

  private static boolean accepts(int port) {
    try (Socket probe = new Socket("127.0.0.1", port)) {
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  /** The node it serves (its {@code --node-id}). */
  String node() {
    return node;
  }

  /** The driver's CSI endpoint, as the sidecars and the kubelet reach it. */
  CsiClient csi() {
    return csi;
  }

  /** A fresh directory under the node's, released with it. */
  Path directory(String name) throws IOException {
    return Files.createDirectories(root.resolve(name));
  }

  /** Bytes the image file of volume {@code volumeId} takes on the host's disk. */
  long imageBytes(String volumeId) {
    return stats.allocatedBytes(new DataLayout(root.resolve("data")).volumeImage(volumeId));
  }

  /** The volumes in the node's data dir (half-made ones not among them). */
  List<String> volumes() {
    return entries("volumes");
  }

  /** The snapshots in the node's data dir (half-made ones not among them). */
  List<String> snapshots() {
    return entries("snapshots");
  }

  private List<String> entries(String under) {
    Path dir = root.resolve("data").resolve(under);
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    try (Stream<Path> list = Files.list(dir)) {
      return list.map(p -> p.getFileName().toString())
          .filter(name -> !name.startsWith("."))
          .toList();
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** Undone before the driver stops, in reverse order of registration. */
  void onRelease(AutoCloseable undo) {
    closing.add(undo);
  }

  /** Stops everything; returns the mounts and loop devices that had to be released. */
  List<String> release() throws Exception {
    List<AutoCloseable> undo = new ArrayList<>(closing);
    closing.clear();
    Collections.reverse(undo);
    Exception failed = closeEach(undo);
    List<String> leaks = HostCleanup.release(root);
    if (failed != null) {
      throw failed;
    }
    return leaks;
  }

  /** Closes every one, even after one failed; returns the first failure, or null. */
  static Exception closeEach(List<? extends AutoCloseable> closing) {
    Exception first = null;
    for (AutoCloseable each : closing) {
      try {
        each.close();
      } catch (Exception e) {
        first = first == null ? e : first;
      }
    }
    return first;
  }

  @Override
  public void close() throws Exception {
    release();
  }
}
