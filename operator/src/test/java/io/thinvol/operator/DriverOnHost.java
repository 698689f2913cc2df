package io.thinvol.operator;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.thinvol.addons.ClusterFixtures;
import io.thinvol.api.BackendNames;
import io.thinvol.driver.client.Capabilities;
import io.thinvol.driver.client.CsiClient;
import io.thinvol.driver.host.MountTable;
import io.thinvol.driver.host.ProcessCommandRunner;
import io.thinvol.driver.preflight.DataFiles;
import io.thinvol.testing.PlayedControllers;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * A real driver process on this host ({@link NodeDriver} of {@value #NODE}) serving one staged 1
 * GiB ext4 volume, and the objects a cluster holds for it (PV, bound PVC {@code apps/data}, the
 * driver pod at 127.0.0.1). Closing unstages and deletes the volume, stops the driver and releases
 * every mount and loop device under its directory, and deletes the directory.
 */
final class DriverOnHost implements AutoCloseable {

  static final String NODE = "node-a";
  static final String CLAIM_NAMESPACE = "apps";
  static final String CLAIM = "data";

  private final NodeDriver driver;
  private final Path root;
  private String volumeId;
  private Path staging;

  private DriverOnHost(NodeDriver driver, Path root) {
    this.driver = driver;
    this.root = root;
  }

  /** The nodes the drivers play, and the namespace of the claims. */
  static void prepareCluster(KubernetesClient client, String... nodes) {
    for (String node : nodes.length == 0 ? new String[] {NODE} : nodes) {
      client
          .resource(new NodeBuilder().withNewMetadata().withName(node).endMetadata().build())
          .create();
    }
    client
        .namespaces()
        .resource(
            new NamespaceBuilder()
                .withNewMetadata()
                .withName(CLAIM_NAMESPACE)
                .endMetadata()
                .build())
        .create();
  }

  /**
   * @param tls the backend's CSI-Addons Secret, as the operator made it
   */
  static DriverOnHost start(KubernetesClient client, String namespace, String backend, Secret tls)
      throws Exception {
    Path root = Files.createTempDirectory("thinvol-e2e-");
    NodeDriver driver = NodeDriver.start(client, namespace, backend, NODE, root, tls);
    DriverOnHost host = new DriverOnHost(driver, root);
    try {
      host.serveVolume(client, backend);
      return host;
    } catch (Exception e) {
      host.close();
      throw e;
    }
  }

  private void serveVolume(KubernetesClient client, String backend) throws IOException {
    // The volume, as the provisioner and kubelet would make it.
    CsiClient csi = driver.csi();
    volumeId = csi.createVolume("pvc-e2e", 1L << 30, Capabilities.mount("ext4"), null);
    driver.onRelease(() -> csi.deleteVolume(volumeId));
    staging = driver.directory("staging");
    csi.stage(volumeId, staging, Capabilities.mount("ext4"));
    driver.onRelease(() -> csi.unstage(volumeId, staging));

    // What the cluster knows about it.
    PlayedControllers.createWithStatus(
        client,
        ClusterFixtures.volume(
            "pv-e2e", BackendNames.driver(backend), volumeId, NODE, CLAIM_NAMESPACE, CLAIM));
    PlayedControllers.createWithStatus(
        client, ClusterFixtures.boundClaim(CLAIM_NAMESPACE, CLAIM, backend, "pv-e2e"));
  }

  /** Writes {@code bytes} of random data into the volume, deletes them and flushes. */
  void writeAndDelete(long bytes) throws IOException {
    Path file = staging.resolve("scratch.bin");
    DataFiles.writeRandom(file, bytes);
    Files.delete(file);
    new ProcessCommandRunner()
        .run(Duration.ofMinutes(1), List.of("sync", "-f", staging.toString()));
  }

  /** Bytes the volume's image file takes on the host's disk. */
  long imageBytes() {
    return driver.imageBytes(volumeId);
  }

  Path staging() {
    return staging;
  }

  /** The driver's CSI endpoint, as the sidecars reach it. */
  CsiClient csi() {
    return driver.csi();
  }

  /** The staged volume's id (the PersistentVolume's {@code volumeHandle}). */
  String volumeId() {
    return volumeId;
  }

  /** A fresh directory under the host's, released with it. */
  Path directory(String name) throws IOException {
    return driver.directory(name);
  }

  /** Undone before the volume and driver are, in reverse order of registration. */
  void onRelease(AutoCloseable undo) {
    driver.onRelease(undo);
  }

  /**
   * Stops everything; returns the mounts and loop devices that had to be released. Its directory is
   * deleted once nothing is mounted under it any more (never through a mount that stayed).
   */
  List<String> release() throws Exception {
    try {
      return driver.release();
    } finally {
      if (Files.isDirectory(root) && MountTable.read().mountPointsUnder(root).isEmpty()) {
        try (Stream<Path> paths = Files.walk(root)) {
          for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
            Files.delete(path);
          }
        }
      }
    }
  }

  @Override
  public void close() throws Exception {
    release();
  }
}
