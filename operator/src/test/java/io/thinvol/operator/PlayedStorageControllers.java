package io.thinvol.operator;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The storage controllers a bare API server lacks, played against the nodes' real drivers: each
 * node's external-provisioner ({@link PlayedProvisioner}) and csi-snapshotter ({@link
 * NodeSnapshotter}), the snapshot controller ({@link PlayedSnapshotController}) and the PV and
 * protection controllers ({@link PlayedVolumeBinder}). They act as the real ones do on their
 * periodic resync: every pass looks at every object, so a step that failed (a source not ready, a
 * conflict) is taken again on the next.
 */
final class PlayedStorageControllers implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(PlayedStorageControllers.class);
  private static final long PASS_MILLIS = 200;

  private final List<NodeSnapshotter> snapshotters = new ArrayList<>();
  private final Map<String, Runnable> controllers = new java.util.LinkedHashMap<>();
  private final Map<String, String> lastFailures = new ConcurrentHashMap<>();
  private final ScheduledExecutorService loop =
      Executors.newSingleThreadScheduledExecutor(
          runnable -> new Thread(runnable, "played-storage-controllers"));

  PlayedStorageControllers(KubernetesClient client, TwoNodeDrivers nodes, String driver) {
    controllers.put("pv-controller", new PlayedVolumeBinder(client)::pass);
    controllers.put(
        "snapshot-controller", new PlayedSnapshotController(client, nodes.byNode())::pass);
    nodes
        .byNode()
        .forEach(
            (name, node) -> {
              controllers.put(
                  "external-provisioner of " + name,
                  new PlayedProvisioner(client, node, driver)::pass);
              snapshotters.add(new NodeSnapshotter(client, name, node.csi(), driver));
            });
    loop.scheduleWithFixedDelay(this::pass, 0, PASS_MILLIS, TimeUnit.MILLISECONDS);
  }

  private void pass() {
    controllers.forEach(
        (name, controller) -> {
          try {
            controller.run();
            lastFailures.remove(name);
          } catch (RuntimeException e) {
            // retried on the next pass, as a controller's requeue; shown if a test times out
            if (!Thread.currentThread().isInterrupted()
                && !e.toString().equals(lastFailures.put(name, e.toString()))) {
              LOG.info("played {}: {}", name, e.toString());
            }
          }
        });
  }

  /** What went wrong in the last pass of each controller, and CreateSnapshot failures. */
  List<String> failures() {
    List<String> failures = new ArrayList<>();
    lastFailures.forEach((name, failure) -> failures.add(name + ": " + failure));
    snapshotters.forEach(snapshotter -> failures.addAll(snapshotter.failures));
    return failures;
  }

  @Override
  public void close() throws InterruptedException {
    loop.shutdownNow();
    loop.awaitTermination(60, TimeUnit.SECONDS);
    snapshotters.forEach(NodeSnapshotter::close);
  }
}
