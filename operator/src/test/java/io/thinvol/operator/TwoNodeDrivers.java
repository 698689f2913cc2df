package io.thinvol.operator;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.thinvol.driver.store.Catalog;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The drivers of nodes {@value #A} and {@value #B}, each a {@link NodeDriver} on its own data dir
 * with real loop devices, both serving the backend's TLS port with the operator's certificate: what
 * a cross-node copy or a VolumeMove needs of two nodes, on this one host.
 */
final class TwoNodeDrivers implements AutoCloseable {

  static final String A = "node-a";
  static final String B = "node-b";

  private final Path root;
  private final Map<String, NodeDriver> drivers = new LinkedHashMap<>();

  private TwoNodeDrivers(Path root) {
    this.root = root;
  }

  /**
   * @param tls the backend's CSI-Addons Secret, as the operator made it
   */
  static TwoNodeDrivers start(KubernetesClient client, String namespace, String backend, Secret tls)
      throws Exception {
    TwoNodeDrivers nodes = new TwoNodeDrivers(Files.createTempDirectory("thinvol-two-nodes-"));
    try {
      for (String node : List.of(A, B)) {
        nodes.drivers.put(
            node,
            NodeDriver.start(client, namespace, backend, node, nodes.root.resolve(node), tls));
      }
      return nodes;
    } catch (Exception e) {
      nodes.close();
      throw e;
    }
  }

  NodeDriver node(String name) {
    return drivers.get(name);
  }

  /** Every node's driver, by node name. */
  Map<String, NodeDriver> byNode() {
    return Map.copyOf(drivers);
  }

  /** Stops both; returns the mounts and loop devices that had to be released. */
  List<String> release() throws Exception {
    List<String> leaks = new ArrayList<>();
    Exception failed =
        NodeDriver.closeEach(
            drivers.values().stream()
                .<AutoCloseable>map(driver -> () -> leaks.addAll(driver.release()))
                .toList());
    drivers.clear();
    keepLogs();
    Catalog.removeTree(root);
    if (failed != null) {
      throw failed;
    }
    return leaks;
  }

  /** The drivers' logs outlive their data dirs, under the build's target, for a failed test. */
  private void keepLogs() throws java.io.IOException {
    Path kept = Files.createDirectories(Path.of("target", "two-node-drivers"));
    for (String node : List.of(A, B)) {
      Path log = root.resolve(node).resolve("driver.log");
      if (Files.exists(log)) {
        Files.copy(log, kept.resolve(root.getFileName() + "-" + node + ".log"));
      }
    }
  }

  @Override
  public void close() throws Exception {
    release();
  }
}
