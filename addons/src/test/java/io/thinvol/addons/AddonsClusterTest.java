package io.thinvol.addons;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.Operator;
import io.thinvol.addons.call.ReclaimCaller;
import io.thinvol.api.BackendNames;
import io.thinvol.api.v1alpha1.ReclaimSpaceJob;
import io.thinvol.api.v1alpha1.ReclaimSpaceJobSpec;
import io.thinvol.api.v1alpha1.ReclaimSpaceSpec;
import io.thinvol.api.v1alpha1.ReclaimTarget;
import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.api.v1alpha1.StorageBackendSpec;
import io.thinvol.testing.DescribedEvents;
import io.thinvol.testing.PlayedControllers;
import io.thinvol.testing.TestCluster;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * Base of the addons tests: the real reconcilers in a JOSDK operator, as the operator's
 * ServiceAccount with the bundle's RBAC, against the {@link TestCluster} (the strict mock API
 * server, or a real one), a StorageBackend {@value #BACKEND} and its driver pods, one per node. A
 * request of the operator's that the cluster refuses (403, 422) fails the test.
 */
abstract class AddonsClusterTest {

  static final String NAMESPACE = "thinvol-system";
  static final String APPS = "apps";
  static final String BACKEND = "local";
  static final Duration FIRST_BACKOFF = Duration.ofSeconds(1);

  TestCluster cluster;
  KubernetesClient client;
  KubernetesClient operatorClient;
  Operator operator;
  Addons addons;

  /** Where the reconcilers queue the jobs' Events. */
  EventQueue eventQueue;

  final ReconcileCounter reconciles = new ReconcileCounter();

  /** The driver endpoint the reconcilers call. */
  abstract ReclaimCaller caller();

  Clock clock() {
    return Clock.systemUTC();
  }

  Duration staggerWindow() {
    return Duration.ofHours(2);
  }

  @BeforeEach
  void startOperator() {
    cluster = TestCluster.start();
    client = cluster.admin();
    cluster.namespace(NAMESPACE);
    cluster.namespace(APPS);
    operatorClient = cluster.operator();
    runOperator();
  }

  private void runOperator() {
    operator =
        new Operator(
            o ->
                o.withKubernetesClient(operatorClient)
                    .withCloseClientOnStop(false)
                    // as in production where the server has it; the strict mock has none
                    .withUseSSAToPatchPrimaryResource(cluster.strict().isEmpty())
                    .withMetrics(reconciles));
    eventQueue = new EventQueue();
    addons =
        Addons.register(
            operator,
            operatorClient,
            new AddonsSettings(NAMESPACE, FIRST_BACKOFF, Duration.ofSeconds(8), staggerWindow()),
            caller(),
            clock(),
            eventQueue);
    operator.start();
  }

  /** Stops the operator; {@code whileDown} runs; a new operator process starts on the cluster. */
  void restartOperator(Runnable whileDown) {
    operator.stop();
    addons.close();
    whileDown.run();
    runOperator();
  }

  @AfterEach
  void stopOperator() {
    try {
      assertThat(
              cluster.decisions().stream()
                  .filter(d -> d.user().equals(TestCluster.OPERATOR))
                  .filter(d -> d.code() == 403 || d.code() == 422)
                  .toList())
          .as("requests of the operator refused")
          .isEmpty();
    } finally {
      operator.stop();
      addons.close();
      operatorClient.close();
      cluster.close();
    }
  }

  StorageBackend backend(int maxConcurrentPerNode, String timeout) {
    StorageBackend backend = new StorageBackend();
    backend.getMetadata().setName(BACKEND);
    StorageBackendSpec spec = new StorageBackendSpec();
    ReclaimSpaceSpec reclaim = new ReclaimSpaceSpec();
    reclaim.setMaxConcurrentPerNode(maxConcurrentPerNode);
    reclaim.setTimeout(timeout);
    reclaim.setSchedule("@weekly");
    spec.setReclaimSpace(reclaim);
    backend.setSpec(spec);
    return client.resource(backend).create();
  }

  /** A StorageClass; {@code provisioner} decides whose it is. */
  void storageClass(String name, String provisioner, Map<String, String> annotations) {
    client
        .resource(
            new io.fabric8.kubernetes.api.model.storage.StorageClassBuilder()
                .withNewMetadata()
                .withName(name)
                .withAnnotations(annotations)
                .endMetadata()
                .withProvisioner(provisioner)
                .withVolumeBindingMode("WaitForFirstConsumer")
                .build())
        .create();
  }

  /** A JSON merge patch: no resourceVersion, so no conflict with the reconcilers' writes. */
  <T extends io.fabric8.kubernetes.api.model.HasMetadata> void merge(
      Class<T> type, String namespace, String name, String patch) {
    var resources = client.resources(type);
    (namespace == null ? resources.withName(name) : resources.inNamespace(namespace).withName(name))
        .patch(
            io.fabric8.kubernetes.client.dsl.base.PatchContext.of(
                io.fabric8.kubernetes.client.dsl.base.PatchType.JSON_MERGE),
            patch);
  }

  /** A Ready driver pod of the backend on a node, serving CSI-Addons on host:port. */
  Pod driverPod(String node, String host, int port) {
    return PlayedControllers.createWithStatus(
        client, ClusterFixtures.driverPod(NAMESPACE, BACKEND, node, host, port));
  }

  /** The backend's CSI-Addons certificate, as the operator stores it. */
  void tlsSecret(String certificatePem) {
    client.resource(ClusterFixtures.addonsTlsSecret(NAMESPACE, certificatePem)).create();
  }

  static String testCertificate() {
    try (InputStream in = AddonsClusterTest.class.getResourceAsStream("/test-tls.crt")) {
      return new String(in.readAllBytes(), StandardCharsets.US_ASCII);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** A bound PVC in {@value #APPS} and its PV of driver {@code driver} on {@code node}. */
  PersistentVolumeClaim boundClaim(String name, String volumeHandle, String node, String driver) {
    return boundClaim(APPS, name, BACKEND, volumeHandle, node, driver);
  }

  /** A bound PVC and its PV (named pv-{@code name}). */
  PersistentVolumeClaim boundClaim(
      String namespace,
      String name,
      String storageClass,
      String volumeHandle,
      String node,
      String driver) {
    String pvName = "pv-" + name;
    PlayedControllers.createWithStatus(
        client, ClusterFixtures.volume(pvName, driver, volumeHandle, node, namespace, name));
    return PlayedControllers.createWithStatus(
        client, ClusterFixtures.boundClaim(namespace, name, storageClass, pvName));
  }

  PersistentVolumeClaim boundClaim(String name, String volumeHandle, String node) {
    return boundClaim(name, volumeHandle, node, BackendNames.driver(BACKEND));
  }

  ReclaimSpaceJob job(String name, String claim, Consumer<ReclaimSpaceJobSpec> tweak) {
    return client.resource(jobObject(name, claim, tweak)).create();
  }

  /**
   * A job its CRD's schema refuses, stored as one stored before the CRD tightened (on a real server
   * while the fixture opens the CRD for the moment).
   */
  ReclaimSpaceJob unvalidatedJob(String name, String claim, Consumer<ReclaimSpaceJobSpec> tweak) {
    return cluster.createUnvalidated(jobObject(name, claim, tweak));
  }

  private static ReclaimSpaceJob jobObject(
      String name, String claim, Consumer<ReclaimSpaceJobSpec> tweak) {
    ReclaimSpaceJob job = new ReclaimSpaceJob();
    job.getMetadata().setName(name);
    job.getMetadata().setNamespace(APPS);
    ReclaimSpaceJobSpec spec = new ReclaimSpaceJobSpec();
    spec.setTarget(new ReclaimTarget(claim));
    spec.setBackOffLimit(6);
    spec.setRetryDeadlineSeconds(600L);
    tweak.accept(spec);
    job.setSpec(spec);
    return job;
  }

  ReclaimSpaceJob awaitResult(String name) {
    return await(
        "a result on job " + name,
        () -> {
          ReclaimSpaceJob job =
              client.resources(ReclaimSpaceJob.class).inNamespace(APPS).withName(name).get();
          return job != null && job.getStatus() != null && job.getStatus().getResult() != null
              ? job
              : null;
        });
  }

  /** Reasons of the Events kubectl describe shows on a namespaced object, oldest first. */
  List<String> eventReasons(String namespace, String objectName) {
    return DescribedEvents.reasons(client, null, namespace, objectName, null);
  }

  /** From a job's start to its end. */
  static Duration elapsed(ReclaimSpaceJob job) {
    return Duration.between(
        Instant.parse(job.getStatus().getStartTime()),
        Instant.parse(job.getStatus().getCompletionTime()));
  }

  static <T> T await(String what, Supplier<T> probe) {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (System.nanoTime() < deadline) {
      T value = probe.get();
      if (value != null && !Boolean.FALSE.equals(value)) {
        return value;
      }
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    throw new AssertionError("timed out waiting for " + what);
  }
}
