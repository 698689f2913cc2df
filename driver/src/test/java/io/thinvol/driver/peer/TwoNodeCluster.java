package io.thinvol.driver.peer;

import csi.v1.VolumeCapability;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.thinvol.driver.client.CsiClient;
import io.thinvol.driver.host.FileStats;
import io.thinvol.driver.host.ProcessCommandRunner;
import java.io.IOException;
import java.nio.file.Path;

/**
 * What a cross-node copy test starts from: node-a's and node-b's drivers, the cluster objects a
 * copy between them reads, and a kubelet's staging of their volumes. A field of the test (fabric8's
 * mock extension injects the server into declared fields only), closed after it.
 */
final class TwoNodeCluster implements AutoCloseable {

  final PeerDrivers nodes;
  final NodeVolumes volumes;
  final CopySources sources;
  private final FileStats stats = new FileStats(new ProcessCommandRunner());

  TwoNodeCluster(KubernetesMockServer server, VolumeCapability capability) throws Exception {
    nodes = new PeerDrivers(server);
    volumes = new NodeVolumes(nodes, capability);
    nodes.servePodList();
    sources = new CopySources(server);
  }

  CsiClient csi(String node) {
    return nodes.driver(node).csi();
  }

  Path snapshotImage(String node, String snapshot) {
    return nodes.dir(node).resolve("data/snapshots").resolve(snapshot).resolve("disk.img");
  }

  /** The bytes {@code image} occupies on its filesystem. */
  long allocated(Path image) {
    return stats.allocatedBytes(image);
  }

  @Override
  public void close() throws IOException {
    nodes.close();
  }
}
