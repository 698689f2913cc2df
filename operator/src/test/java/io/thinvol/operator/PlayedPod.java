package io.thinvol.operator;

import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.thinvol.driver.client.Capabilities;
import io.thinvol.driver.host.ProcessCommandRunner;
import io.thinvol.testing.PlayedControllers;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * An application pod using one claim on one node, with the kubelet played: the Pod object (on the
 * node, phase Running) and the volume staged and published by the node's real driver, as the
 * kubelet does before the container starts. {@link #stop} unpublishes and unstages it and deletes
 * the Pod object, as the kubelet does for a pod being evicted.
 */
final class PlayedPod implements AutoCloseable {

  private final KubernetesClient client;
  private final NodeDriver node;
  private final Pod pod;
  private final String volumeId;
  private final Path staging;
  private final Path target;
  private boolean running = true;
  private boolean podExists = true;

  private PlayedPod(
      KubernetesClient client,
      NodeDriver node,
      Pod pod,
      String volumeId,
      Path staging,
      Path target) {
    this.client = client;
    this.node = node;
    this.pod = pod;
    this.volumeId = volumeId;
    this.staging = staging;
    this.target = target;
  }

  /**
   * A node call retried while the driver answers ABORTED (another call for the volume, such as a
   * replication's sync snapshot, holds it), as the kubelet retries it.
   */
  private static void asTheKubeletDoes(Runnable call) {
    long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
    while (true) {
      try {
        call.run();
        return;
      } catch (io.grpc.StatusRuntimeException e) {
        if (e.getStatus().getCode() != io.grpc.Status.Code.ABORTED
            || System.nanoTime() > deadline) {
          throw e;
        }
        try {
          Thread.sleep(500);
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
          throw e;
        }
      }
    }
  }

  /** Pod {@code name} using claim {@code namespace/claim}, which is bound, runs on {@code node}. */
  static PlayedPod start(
      KubernetesClient client, NodeDriver node, String namespace, String name, String claim)
      throws Exception {
    PersistentVolumeClaim bound =
        client.persistentVolumeClaims().inNamespace(namespace).withName(claim).get();
    PersistentVolume volume =
        client.persistentVolumes().withName(bound.getSpec().getVolumeName()).get();
    String volumeId = volume.getSpec().getCsi().getVolumeHandle();
    Path staging = node.directory("staging/" + volumeId);
    Path target = node.directory("pods/" + name + "/" + volumeId);
    var capability = Capabilities.mount(volume.getSpec().getCsi().getFsType());
    asTheKubeletDoes(() -> node.csi().stage(volumeId, staging, capability));
    asTheKubeletDoes(() -> node.csi().publish(volumeId, staging, target, capability, false));
    Pod pod =
        PlayedControllers.createWithStatus(
            client,
            new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace(namespace)
                .endMetadata()
                .withNewSpec()
                .withNodeName(node.node())
                .addNewContainer()
                .withName("app")
                .withImage("busybox")
                .endContainer()
                .addNewVolume()
                .withName("data")
                .withNewPersistentVolumeClaim()
                .withClaimName(claim)
                .endPersistentVolumeClaim()
                .endVolume()
                .endSpec()
                .build());
    PlayedControllers.podRunning(client, pod, "10.0.0.1", true);
    PlayedPod played = new PlayedPod(client, node, pod, volumeId, staging, target);
    node.onRelease(played);
    return played;
  }

  /** Where the container sees the claim's filesystem. */
  Path mount() {
    return target;
  }

  /** Flushes the filesystem's writes to its image, as an application's fsync would. */
  void sync() {
    new ProcessCommandRunner().run(Duration.ofMinutes(1), List.of("sync", "-f", target.toString()));
  }

  /** The pod ends (evicted, or scaled down): its volume is released, its object deleted. */
  void stop() {
    if (running) {
      running = false;
      asTheKubeletDoes(() -> node.csi().unpublish(volumeId, target));
      asTheKubeletDoes(() -> node.csi().unstage(volumeId, staging));
    }
    lose();
  }

  /**
   * Its node died: Kubernetes deletes the Pod object (the pod GC, once the node is out of service);
   * the volume stays mounted on that node until its kubelet returns ({@link #stop}).
   */
  void lose() {
    if (podExists) {
      podExists = false;
      PlayedControllers.deleteUnused(client, pod);
    }
  }

  @Override
  public void close() {
    stop();
  }
}
