package io.thinvol.driver.peer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import csi.v1.VolumeCapability;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.thinvol.driver.client.CsiClient;
import io.thinvol.driver.host.FileStats;
import io.thinvol.driver.host.ProcessCommandRunner;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

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

  /**
   * Runs {@code copy} (a call that makes node-b pull from node-a, through a relay) and kills
   * node-b's driver (SIGKILL) once node-a has sent {@code bytes}, the call still running; returns
   * once the call has failed.
   */
  void killNodeBMidCopy(Callable<?> copy, long bytes) throws Exception {
    int nodeA = nodes.port("node-a");
    try (ByteCountingProxy relay = new ByteCountingProxy(nodeA)) {
      nodes.standIn("node-a", relay.port());
      CompletableFuture<?> running =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  return copy.call();
                } catch (Exception e) {
                  throw new IllegalStateException(e);
                }
              });
      long sent = 0;
      long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
      while (sent < bytes && !running.isDone() && System.nanoTime() < deadline) {
        Thread.sleep(5);
        sent += relay.takeBytesFromTarget();
      }
      assertThat(running).as("the copy was still running (%d bytes sent)", sent).isNotDone();
      nodes.driver("node-b").kill();
      assertThat(catchThrowable(() -> running.get(60, TimeUnit.SECONDS)))
          .isInstanceOf(ExecutionException.class);
    } finally {
      nodes.standIn("node-a", nodeA);
    }
  }

  @Override
  public void close() throws IOException {
    nodes.close();
  }
}
