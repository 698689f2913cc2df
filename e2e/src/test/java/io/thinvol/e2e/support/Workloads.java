package io.thinvol.e2e.support;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.ExecWatch;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** The users' pods: a shell image mounting claims, and commands run inside them. */
public final class Workloads {

  public static final String CONTAINER = "app";
  public static final String HOSTNAME_LABEL = "kubernetes.io/hostname";
  private static final Duration READY_LIMIT = Duration.ofMinutes(3);
  private static final Duration EXEC_LIMIT = Duration.ofMinutes(5);

  private final KubernetesClient client;
  private final String namespace;
  private final String image;
  private final String node;

  /**
   * The pods of {@code namespace}, each pinned to {@code node} by its hostname label (the scheduler
   * then picks that node for a claim that waits for its first consumer), or left to the scheduler
   * where {@code node} is null.
   */
  public Workloads(KubernetesClient client, String namespace, String image, String node) {
    this.client = client;
    this.namespace = namespace;
    this.image = image;
    this.node = node;
  }

  /** The same pods, pinned to another node (null: wherever the scheduler puts them). */
  public Workloads on(String otherNode) {
    return new Workloads(client, namespace, image, otherNode);
  }

  /** A pod mounting each claim (key) at its path (value), started and Ready. */
  public Pod mounting(String name, Map<String, String> mountPathByClaim) {
    ContainerBuilder container = container();
    List<Volume> volumes = new ArrayList<>();
    mountPathByClaim.forEach(
        (claim, path) -> {
          volumes.add(claimVolume(claim));
          container.addNewVolumeMount().withName(claim).withMountPath(path).endVolumeMount();
        });
    return start(name, container.build(), volumes);
  }

  /** A pod with the block claim as the device {@code device}, started and Ready. */
  public Pod withDevice(String name, String claim, String device) {
    Container container =
        container()
            .addNewVolumeDevice()
            .withName(claim)
            .withDevicePath(device)
            .endVolumeDevice()
            .build();
    return start(name, container, List.of(claimVolume(claim)));
  }

  private ContainerBuilder container() {
    return new ContainerBuilder()
        .withName(CONTAINER)
        .withImage(image)
        .withImagePullPolicy("IfNotPresent")
        .withCommand("sh", "-c", "trap 'exit 0' TERM; while true; do sleep 1; done");
  }

  private static Volume claimVolume(String claim) {
    return new VolumeBuilder()
        .withName(claim)
        .withNewPersistentVolumeClaim()
        .withClaimName(claim)
        .endPersistentVolumeClaim()
        .build();
  }

  private Pod start(String name, Container container, List<Volume> volumes) {
    Pod pod =
        new PodBuilder()
            .withNewMetadata()
            .withName(name)
            .withNamespace(namespace)
            .addToLabels("app.kubernetes.io/part-of", "thinvol-e2e")
            .endMetadata()
            .withNewSpec()
            .withContainers(container)
            .withVolumes(volumes)
            .withNodeSelector(node == null ? null : Map.of(HOSTNAME_LABEL, node))
            .withTerminationGracePeriodSeconds(2L)
            .endSpec()
            .build();
    client.resource(pod).create();
    return awaitReady(name);
  }

  public Pod awaitReady(String name) {
    return Waits.until(
        "pod " + namespace + "/" + name + " to be Ready",
        READY_LIMIT,
        () ->
            Optional.ofNullable(client.pods().inNamespace(namespace).withName(name).get())
                .filter(Workloads::ready));
  }

  static boolean ready(Pod pod) {
    return pod.getStatus() != null
        && pod.getStatus().getConditions().stream()
            .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
  }

  /** Deletes a pod and waits until it is gone (its volumes unpublished by the kubelet). */
  public void delete(String name) {
    client.pods().inNamespace(namespace).withName(name).delete();
    Waits.untilTrue(
        "pod " + namespace + "/" + name + " to be gone",
        READY_LIMIT,
        () -> client.pods().inNamespace(namespace).withName(name).get() == null);
  }

  /** Runs a shell script in the pod; its output, or an {@link AssertionError} when it fails. */
  public String sh(String pod, String script) {
    return exec(client, namespace, pod, CONTAINER, script);
  }

  /** Runs a shell script in a container of any pod. */
  public static String exec(
      KubernetesClient client, String namespace, String pod, String container, String script) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    try (ExecWatch watch =
        client
            .pods()
            .inNamespace(namespace)
            .withName(pod)
            .inContainer(container)
            .writingOutput(out)
            .writingError(err)
            .exec("sh", "-c", script)) {
      int code = watch.exitCode().get(EXEC_LIMIT.toSeconds(), TimeUnit.SECONDS);
      if (code != 0) {
        throw new AssertionError(
            "in pod " + pod + ": `" + script + "` failed (" + code + "): " + text(err) + text(out));
      }
      return text(out);
    } catch (ExecutionException | TimeoutException e) {
      throw new AssertionError("in pod " + pod + ": `" + script + "` did not complete", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  /** The SHA-256 of a file or device inside the pod, as {@code sha256sum} prints it. */
  public String sha256(String pod, String path) {
    return sh(pod, "sha256sum " + path).trim().split("\\s+")[0];
  }

  private static String text(ByteArrayOutputStream stream) {
    return stream.toString(StandardCharsets.UTF_8);
  }
}
