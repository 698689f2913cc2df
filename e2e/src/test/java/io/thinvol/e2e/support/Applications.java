package io.thinvol.e2e.support;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Applications as users run them on claims: StatefulSets with claim templates and Deployments with
 * one claim, whose pods keep appending numbered lines to {@code /data/log} (synced each time)
 * beside a file of random data written once, so that what a pod finds after a move can be checked:
 * the file unchanged, the log without a gap and reaching at least as far as it did before.
 */
public final class Applications {

  public static final String APP_LABEL = "e2e.thinvol.io/app";
  private static final Duration READY_LIMIT = Duration.ofMinutes(5);

  /**
   * Writes {@code /data/file} once (16 MiB of random data), then a line a number every 0.2 s,
   * continuing the log's count after a restart.
   */
  private static final String WRITER =
      "trap 'exit 0' TERM; cd /data; "
          + "[ -f file ] || { dd if=/dev/urandom of=file.tmp bs=1M count=16 2>/dev/null"
          + " && sync file.tmp && mv file.tmp file && sync .; }; "
          + "n=$(wc -l < log 2>/dev/null || echo 0); "
          + "while true; do n=$((n+1)); echo $n >> log; sync log; sleep 0.2; done";

  /** Exits non-zero unless every line of the log is its own number. */
  public static final String LOG_WITHOUT_GAP =
      "awk 'NR != $1 { print \"line \" NR \" reads \" $1; bad = 1; exit } END { exit bad }' /data/log";

  private final KubernetesClient client;
  private final String namespace;
  private final String image;

  public Applications(KubernetesClient client, String namespace, String image) {
    this.client = client;
    this.namespace = namespace;
    this.image = image;
  }

  /** A StatefulSet of writers, each with its own claim {@code data-<name>-<i>}. */
  public StatefulSet statefulSet(String name, int replicas, String storageClass, String size) {
    StatefulSet set =
        new StatefulSetBuilder()
            .withNewMetadata()
            .withName(name)
            .withNamespace(namespace)
            .endMetadata()
            .withNewSpec()
            .withReplicas(replicas)
            .withServiceName(name)
            .withNewSelector()
            .addToMatchLabels(APP_LABEL, name)
            .endSelector()
            .withNewTemplate()
            .withNewMetadata()
            .addToLabels(APP_LABEL, name)
            .endMetadata()
            .withSpec(writerPod("data"))
            .endTemplate()
            .withVolumeClaimTemplates(
                new PersistentVolumeClaimBuilder()
                    .withNewMetadata()
                    .withName("data")
                    .endMetadata()
                    .withNewSpec()
                    .withStorageClassName(storageClass)
                    .withAccessModes("ReadWriteOnce")
                    .withNewResources()
                    .addToRequests("storage", new Quantity(size))
                    .endResources()
                    .endSpec()
                    .build())
            .endSpec()
            .build();
    return client.resource(set).create();
  }

  /** A Deployment of one writer on an existing claim. */
  public Deployment deployment(String name, String claim) {
    PodSpec spec = writerPod("data");
    spec.getVolumes().get(0).getPersistentVolumeClaim().setClaimName(claim);
    Deployment deployment =
        new DeploymentBuilder()
            .withNewMetadata()
            .withName(name)
            .withNamespace(namespace)
            .endMetadata()
            .withNewSpec()
            .withReplicas(1)
            .withNewStrategy()
            .withType("Recreate") // a ReadWriteOnce claim: the old pod goes first
            .endStrategy()
            .withNewSelector()
            .addToMatchLabels(APP_LABEL, name)
            .endSelector()
            .withNewTemplate()
            .withNewMetadata()
            .addToLabels(APP_LABEL, name)
            .endMetadata()
            .withSpec(spec)
            .endTemplate()
            .endSpec()
            .build();
    return client.resource(deployment).create();
  }

  private PodSpec writerPod(String claimVolume) {
    return new PodSpecBuilder()
        .withContainers(
            new ContainerBuilder()
                .withName(Workloads.CONTAINER)
                .withImage(image)
                .withImagePullPolicy("IfNotPresent")
                .withCommand("sh", "-c", WRITER)
                .addNewVolumeMount()
                .withName(claimVolume)
                .withMountPath("/data")
                .endVolumeMount()
                .build())
        .addNewVolume()
        .withName(claimVolume)
        .withNewPersistentVolumeClaim()
        .withClaimName(claimVolume)
        .endPersistentVolumeClaim()
        .endVolume()
        .withTerminationGracePeriodSeconds(2L)
        .build();
  }

  /** Deletes the application's StatefulSet or Deployment and waits for its pods to be gone. */
  public void delete(String app) {
    client.apps().statefulSets().inNamespace(namespace).withName(app).delete();
    client.apps().deployments().inNamespace(namespace).withName(app).delete();
    awaitGone(app);
  }

  public void scaleStatefulSet(String name, int replicas) {
    client.apps().statefulSets().inNamespace(namespace).withName(name).scale(replicas);
  }

  /** The application's pods (by its label). */
  public List<Pod> pods(String app) {
    return client.pods().inNamespace(namespace).withLabel(APP_LABEL, app).list().getItems();
  }

  /** Waits until the application has {@code count} pods, all Ready; them. */
  public List<Pod> awaitReady(String app, int count) {
    return Waits.until(
        count + " Ready pod(s) of " + app,
        READY_LIMIT,
        () ->
            java.util.Optional.of(pods(app))
                .filter(p -> p.size() == count)
                .filter(p -> p.stream().allMatch(Workloads::ready)),
        () ->
            pods(app).stream()
                .map(
                    p ->
                        p.getMetadata().getName()
                            + " on "
                            + p.getSpec().getNodeName()
                            + " "
                            + p.getStatus().getPhase())
                .toList());
  }

  /** Waits until the application has no pod left. */
  public void awaitGone(String app) {
    Waits.untilTrue("the pods of " + app + " to be gone", READY_LIMIT, () -> pods(app).isEmpty());
  }

  /** The last number the pod's log holds. */
  public long lastLine(String pod) {
    String out = Workloads.exec(client, namespace, pod, Workloads.CONTAINER, "tail -n 1 /data/log");
    return Long.parseLong(out.trim());
  }

  public Map<String, String> labels(String app) {
    return Map.of(APP_LABEL, app);
  }
}
