package io.thinvol.operator;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.DaemonSetStatusBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.storage.CSIDriver;
import io.fabric8.kubernetes.api.model.storage.CSINodeBuilder;
import io.fabric8.kubernetes.api.model.storage.StorageClass;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.grpc.Status;
import io.javaoperatorsdk.operator.api.config.ConfigurationServiceOverrider;
import io.thinvol.addons.ClusterFixtures;
import io.thinvol.addons.call.ReclaimCaller;
import io.thinvol.api.kube.Events;
import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.api.v1alpha1.StorageBackendSpec;
import io.thinvol.operator.model.Settings;
import io.thinvol.operator.model.StatusModel;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * Base of the operator tests: the real reconciler in a JOSDK operator against the fabric8 mock API
 * server (CRUD mode, which has no server-side apply, so the operator runs without it here).
 */
@EnableKubernetesMockClient(crud = true)
abstract class MockClusterTest {

  static final String NAMESPACE = "thinvol-system";
  static final Settings SETTINGS =
      new Settings(NAMESPACE, "quay.io/thinvol/thinvol:0.1.0", false, true);

  KubernetesClient client;
  KubernetesMockServer server;
  OperatorRunner operator;

  /** What the operator is told about the cluster; a subclass may play another platform. */
  Settings settings() {
    return SETTINGS;
  }

  /** Tells the operator's requests from the test's own in the mock server's record. */
  static final String OPERATOR_USER_AGENT = "thinvol-operator-under-test";

  /** The operator's client: its namespace is the operator's, as in a pod. */
  KubernetesClient operatorClient;

  @BeforeEach
  void start() throws IOException {
    operatorClient =
        new KubernetesClientBuilder()
            .withConfig(
                new ConfigBuilder(client.getConfiguration())
                    .withNamespace(NAMESPACE)
                    .withUserAgent(OPERATOR_USER_AGENT)
                    .build())
            .build();
    operator =
        OperatorRunner.start(
            operatorClient, settings(), false, 0, caller(), withoutServerSideApply());
  }

  /** How the addons reach the drivers; by default they cannot. */
  ReclaimCaller caller() {
    return noDriverCalls();
  }

  /** These tests run no driver: a reclaim call fails as an unreachable pod's would. */
  static ReclaimCaller noDriverCalls() {
    return (endpoint, service, volumeId, timeout) ->
        CompletableFuture.failedFuture(
            Status.UNAVAILABLE.withDescription("no driver in this test").asRuntimeException());
  }

  /** The mock server has no server-side apply: the operator patches and compares without it. */
  static Consumer<ConfigurationServiceOverrider> withoutServerSideApply() {
    return overrider ->
        overrider
            .withUseSSAToPatchPrimaryResource(false)
            .withSSABasedCreateUpdateMatchForDependentResources(false)
            .withDefaultNonSSAResource(
                Set.of(
                    ServiceAccount.class,
                    ClusterRole.class,
                    ClusterRoleBinding.class,
                    Role.class,
                    RoleBinding.class,
                    CSIDriver.class,
                    Secret.class,
                    DaemonSet.class,
                    NetworkPolicy.class,
                    StorageClass.class));
  }

  @AfterEach
  void stop() {
    operator.close();
    operatorClient.close();
  }

  static <T> T await(String what, Supplier<T> probe) {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (System.nanoTime() < deadline) {
      T value = probe.get();
      if (value != null && !Boolean.FALSE.equals(value)) {
        return value;
      }
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    throw new AssertionError("timed out waiting for " + what);
  }

  <T extends HasMetadata> T namespaced(Class<T> type, String name) {
    return await(
        type.getSimpleName() + " " + name,
        () -> client.resources(type).inNamespace(NAMESPACE).withName(name).get());
  }

  <T extends HasMetadata> T clusterScoped(Class<T> type, String name) {
    return await(
        type.getSimpleName() + " " + name, () -> client.resources(type).withName(name).get());
  }

  /** The mock server runs no DaemonSet controller: play it, with {@code nodes} ready nodes. */
  void playDaemonSetController(String name, int nodes, int available) {
    DaemonSet current =
        client.resources(DaemonSet.class).inNamespace(NAMESPACE).withName(name).get();
    current.setStatus(
        new DaemonSetStatusBuilder()
            .withDesiredNumberScheduled(nodes)
            .withNumberReady(nodes)
            .withNumberAvailable(available)
            .withUpdatedNumberScheduled(nodes)
            .withCurrentNumberScheduled(nodes)
            .withNumberMisscheduled(0)
            .withObservedGeneration(current.getMetadata().getGeneration())
            .build());
    client.resource(current).updateStatus();
  }

  StorageBackend awaitReady(String name) {
    return await(
        name + " Ready=True",
        () -> {
          StorageBackend now = client.resources(StorageBackend.class).withName(name).get();
          return now.getStatus() != null && StatusModel.isReady(now.getStatus()) ? now : null;
        });
  }

  List<RecordedRequest> drainRequests() throws InterruptedException {
    List<RecordedRequest> requests = new ArrayList<>();
    for (RecordedRequest r; (r = server.takeRequest(1, TimeUnit.MILLISECONDS)) != null; ) {
      requests.add(r);
    }
    return requests;
  }

  void registerDriver(String node, String driver) {
    client
        .resource(
            new CSINodeBuilder()
                .withNewMetadata()
                .withName(node)
                .endMetadata()
                .withNewSpec()
                .addNewDriver()
                .withName(driver)
                .withNodeID(node)
                .endDriver()
                .endSpec()
                .build())
        .create();
  }

  /** Reasons of the Events on a backend: cluster-scoped, its Events are in {@code default}. */
  List<String> eventReasons(String backend) {
    return eventReasons(Events.CLUSTER_SCOPED_NAMESPACE, backend);
  }

  /** Reasons of the Events recorded in a namespace on an object of that name. */
  List<String> eventReasons(String namespace, String name) {
    return client.v1().events().inNamespace(namespace).list().getItems().stream()
        .filter(e -> name.equals(e.getInvolvedObject().getName()))
        .map(e -> e.getReason())
        .toList();
  }

  StorageBackend apply(String yaml) {
    return client
        .resource(
            Serialization.unmarshal(
                "apiVersion: thinvol.io/v1alpha1\nkind: StorageBackend\n" + yaml,
                StorageBackend.class))
        .create();
  }

  /** A claim of 1 GiB on {@code storageClass}, as an application would make it. */
  static PersistentVolumeClaim claim(String namespace, String name, String storageClass) {
    return ClusterFixtures.claim(namespace, name, storageClass);
  }

  /**
   * Changes a backend's spec as kubectl edit does: read the latest, change it, write it with that
   * resourceVersion; a 409 (the operator wrote the status in between) reads again and retries.
   */
  void editSpec(String name, Consumer<StorageBackendSpec> change) {
    for (int attempt = 1; ; attempt++) {
      StorageBackend latest = client.resources(StorageBackend.class).withName(name).get();
      change.accept(latest.getSpec());
      try {
        client.resource(latest).update();
        return;
      } catch (KubernetesClientException e) {
        if (e.getCode() != 409 || attempt == 10) {
          throw e;
        }
      }
    }
  }
}
