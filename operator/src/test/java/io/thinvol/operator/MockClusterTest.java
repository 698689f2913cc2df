package io.thinvol.operator;

import static org.assertj.core.api.Assertions.assertThat;

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
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.grpc.Status;
import io.javaoperatorsdk.operator.api.config.ConfigurationServiceOverrider;
import io.javaoperatorsdk.operator.api.config.LeaderElectionConfiguration;
import io.thinvol.addons.ClusterFixtures;
import io.thinvol.addons.call.MoveCopier;
import io.thinvol.addons.call.ReclaimCaller;
import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.api.v1alpha1.StorageBackendSpec;
import io.thinvol.operator.model.Settings;
import io.thinvol.operator.model.StatusModel;
import io.thinvol.testing.ApiRequest;
import io.thinvol.testing.DescribedEvents;
import io.thinvol.testing.StrictApiServer;
import io.thinvol.testing.TestCluster;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * Base of the operator tests: the real reconciler in a JOSDK operator, as its ServiceAccount with
 * the bundle's RBAC and leader election on, against the {@link TestCluster} (the strict mock API
 * server, which has no server-side apply, so the operator runs without it there; or a real one,
 * where it runs with it, as in production). A request of the operator's that the cluster refuses
 * (403, 422) or a lost leadership fails the test.
 */
abstract class MockClusterTest {

  static final String NAMESPACE = "thinvol-system";
  static final Settings SETTINGS =
      new Settings(NAMESPACE, "quay.io/thinvol/thinvol:0.1.0", false, true);

  /** Short, so that a test sees several renewals; set through configuration, as in production. */
  static final Duration LEASE = Duration.ofSeconds(2);

  static final Duration RENEW_DEADLINE = Duration.ofMillis(1500);
  static final Duration RETRY_PERIOD = Duration.ofMillis(250);

  TestCluster cluster;
  KubernetesClient client;

  /** The whole operator, where the test runs it ({@link #startOperator}); else null. */
  OperatorRunner operator;

  /** Stops what runs as the operator: {@link #operator} or the part a subclass starts instead. */
  private Runnable stopOperator;

  final AtomicBoolean lostLeadership = new AtomicBoolean();
  final AtomicBoolean leading = new AtomicBoolean();
  private int drained;

  /** What the operator is told about the cluster; a subclass may play another platform. */
  Settings settings() {
    return SETTINGS;
  }

  /** The operator's client: its ServiceAccount in its namespace, as in a pod. */
  KubernetesClient operatorClient;

  /** The operator's client, as in its pod; a subclass may route it. */
  KubernetesClient connectOperator() {
    return cluster.operator();
  }

  /** The cluster of a test; a subclass may play one with other grants. */
  TestCluster startCluster() {
    return TestCluster.start();
  }

  @BeforeEach
  void start() throws IOException {
    cluster = startCluster();
    client = cluster.admin();
    cluster.namespace(NAMESPACE);
    operatorClient = connectOperator();
    serveOptionalApis(settings());
    stopOperator = startOperator(settings());
  }

  /**
   * Starts the operator under test on {@link #operatorClient}: by default all of it, as {@link
   * #operator}. A test of one controller alone overrides this to start only that one, with {@link
   * #tuning()}, so that no other controller writes what the test plays.
   *
   * @return what stops it
   */
  Runnable startOperator(Settings settings) throws IOException {
    operator =
        OperatorRunner.start(
            operatorClient, settings, false, 0, caller(), copier(), tuning(), clock());
    return operator::close;
  }

  /** The operator's clock; a test of a deadline moves its own forward instead of waiting. */
  Clock clock() {
    return Clock.systemUTC();
  }

  /** The JOSDK configuration of the operator under test: the cluster's, with leader election. */
  Consumer<ConfigurationServiceOverrider> tuning() {
    return serverSideApplyOf(cluster).andThen(this::leaderElection);
  }

  /** Stops the operator and starts another one with {@code settings}, as an upgrade does. */
  void restartOperator(Settings settings) throws IOException {
    restartOperator(settings, () -> {});
  }

  /** As {@link #restartOperator(Settings)}; {@code whileDown} runs while no operator runs. */
  void restartOperator(Settings settings, Runnable whileDown) throws IOException {
    leading.set(false); // giving up the lease on close is no lost leadership
    stopOperator.run();
    whileDown.run();
    serveOptionalApis(settings);
    stopOperator = startOperator(settings);
  }

  /**
   * The optional APIs the operator is told the cluster serves, served: the CRDs a user installs
   * (snapshots, group snapshots, snapshot metadata, the Prometheus Operator's) and, for OpenShift,
   * what it serves built in ({@link TestCluster#playOpenShift}). A real server, like the strict
   * mock, answers 404 for an API it does not serve.
   */
  private void serveOptionalApis(Settings settings) {
    if (settings.snapshotApi()) {
      cluster.installSnapshotCrds();
    }
    if (settings.groupSnapshotApi()) {
      cluster.installGroupSnapshotCrds();
    }
    if (settings.snapshotMetadataApi()) {
      cluster.installSnapshotMetadataCrd();
    }
    if (settings.monitoringApi()) {
      cluster.installMonitoringCrds();
    }
    if (settings.openShift()) {
      cluster.playOpenShift();
    }
  }

  /** Leader election as in production, with short durations and no System.exit on a loss. */
  /** How long the operator's lease lasts, how long it may take to renew it, how often it tries. */
  record LeaseTimes(Duration lease, Duration renewDeadline, Duration retryPeriod) {}

  /** Short ones, so that a test sees several renewals; a subclass on a busier host may differ. */
  LeaseTimes leaseTimes() {
    return new LeaseTimes(LEASE, RENEW_DEADLINE, RETRY_PERIOD);
  }

  private void leaderElection(ConfigurationServiceOverrider overrider) {
    overrider.withLeaderElectionConfiguration(
        new LeaderElectionConfiguration(
            OperatorRunner.LEASE,
            NAMESPACE,
            leaseTimes().lease(),
            leaseTimes().renewDeadline(),
            leaseTimes().retryPeriod(),
            "operator-under-test",
            new LeaderCallbacks(
                () -> leading.set(true), () -> lostLeadership.set(leading.get()), leader -> {}),
            false));
  }

  /** How the addons reach the drivers; by default they cannot. */
  ReclaimCaller caller() {
    return noDriverCalls();
  }

  /** How a VolumeMove reaches the drivers; by default it cannot. */
  MoveCopier copier() {
    return noMoveCopies();
  }

  /** These tests run no driver: a move's call fails as an unreachable pod's would. */
  static MoveCopier noMoveCopies() {
    return new MoveCopier() {
      @Override
      public CompletableFuture<CopiedIn> copyIn(
          io.thinvol.addons.resolve.DriverEndpoint target, CopyIn request, Duration timeout) {
        return unreachable();
      }

      @Override
      public CompletableFuture<Taken> snapshot(
          io.thinvol.addons.resolve.DriverEndpoint source, SnapshotOf request, Duration timeout) {
        return unreachable();
      }

      @Override
      public CompletableFuture<Boolean> dropSnapshot(
          io.thinvol.addons.resolve.DriverEndpoint source, SnapshotOf request, Duration timeout) {
        return unreachable();
      }

      @Override
      public CompletableFuture<Boolean> dropVolume(
          io.thinvol.addons.resolve.DriverEndpoint target,
          String name,
          String snapshotId,
          Duration timeout) {
        return unreachable();
      }

      @Override
      public CompletableFuture<VolumeSpace> space(
          io.thinvol.addons.resolve.DriverEndpoint node, String volumeId, Duration timeout) {
        return unreachable();
      }

      @Override
      public CompletableFuture<CopiedIn> replicaIn(
          io.thinvol.addons.resolve.DriverEndpoint standby, ReplicaIn request, Duration timeout) {
        return unreachable();
      }

      @Override
      public CompletableFuture<java.util.List<String>> synced(
          io.thinvol.addons.resolve.DriverEndpoint node, Synced request, Duration timeout) {
        return unreachable();
      }

      @Override
      public CompletableFuture<Boolean> role(
          io.thinvol.addons.resolve.DriverEndpoint node,
          Role change,
          String volumeId,
          String replicationId,
          boolean force,
          Duration timeout) {
        return unreachable();
      }

      private static <T> CompletableFuture<T> unreachable() {
        return CompletableFuture.failedFuture(
            Status.UNAVAILABLE.withDescription("no driver in this test").asRuntimeException());
      }
    };
  }

  /** These tests run no driver: a reclaim call fails as an unreachable pod's would. */
  static ReclaimCaller noDriverCalls() {
    return (endpoint, service, volumeId, timeout) ->
        CompletableFuture.failedFuture(
            Status.UNAVAILABLE.withDescription("no driver in this test").asRuntimeException());
  }

  /**
   * Server-side apply as in production where the server has it (a real one); the strict mock has
   * none, so there the operator patches and compares without it.
   */
  static Consumer<ConfigurationServiceOverrider> serverSideApplyOf(TestCluster cluster) {
    return cluster.strict().isPresent() ? withoutServerSideApply() : overrider -> {};
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
    if (stopOperator == null) {
      return; // skipped before it started (an assumption in startCluster)
    }
    try {
      assertThat(lostLeadership).as("the operator lost its leadership").isFalse();
      assertThat(refusedOperatorRequests()).as("requests of the operator refused").isEmpty();
    } finally {
      stopOperator.run();
      operatorClient.close();
      cluster.close();
    }
  }

  /**
   * The operator's requests the strict server refused (a real server's refusals show as failures).
   */
  List<StrictApiServer.Decision> refusedOperatorRequests() {
    return operatorDecisions().stream().filter(d -> d.code() == 403 || d.code() == 422).toList();
  }

  List<StrictApiServer.Decision> operatorDecisions() {
    return cluster.decisions().stream().filter(d -> d.user().equals(TestCluster.OPERATOR)).toList();
  }

  static <T> T await(String what, Supplier<T> probe) {
    return await(what, Duration.ofSeconds(30), probe);
  }

  /** As {@link #await(String, Supplier)}, for what takes longer (data copied between nodes). */
  static <T> T await(String what, Duration timeout, Supplier<T> probe) {
    long deadline = System.nanoTime() + timeout.toNanos();
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

  /**
   * The resourceVersion of every object the operator writes (of a DaemonSet its generation: the
   * test plays the DaemonSet controller's status writes).
   */
  Map<String, String> versions() {
    Map<String, String> versions = new TreeMap<>();
    for (Class<? extends HasMetadata> type :
        List.of(ServiceAccount.class, Secret.class, Role.class, RoleBinding.class)) {
      client
          .resources(type)
          .inNamespace(NAMESPACE)
          .list()
          .getItems()
          .forEach(o -> versions.put(key(o), o.getMetadata().getResourceVersion()));
    }
    for (Class<? extends HasMetadata> type :
        List.of(
            ClusterRole.class,
            ClusterRoleBinding.class,
            CSIDriver.class,
            StorageClass.class,
            StorageBackend.class)) {
      client
          .resources(type)
          .list()
          .getItems()
          .forEach(o -> versions.put(key(o), o.getMetadata().getResourceVersion()));
    }
    client
        .resources(DaemonSet.class)
        .inNamespace(NAMESPACE)
        .list()
        .getItems()
        .forEach(o -> versions.put(key(o), "generation " + o.getMetadata().getGeneration()));
    return versions;
  }

  private static String key(HasMetadata object) {
    return object.getKind() + " " + object.getMetadata().getName();
  }

  /** The operator's requests since the last call (the strict server's record). */
  List<ApiRequest> drainRequests() {
    List<StrictApiServer.Decision> all = operatorDecisions();
    List<ApiRequest> fresh =
        all.subList(Math.min(drained, all.size()), all.size()).stream()
            .map(StrictApiServer.Decision::request)
            .toList();
    drained = all.size();
    return fresh;
  }

  void registerDriver(String node, String driver) {
    registerDriver(client, node, driver);
  }

  /** The CSINode of {@code node}, its kubelet having registered {@code driver}. */
  static void registerDriver(KubernetesClient client, String node, String driver) {
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

  /** A GET of the operator's health and metrics server, as the kubelet and Prometheus make. */
  HttpResponse<String> get(String path) {
    try {
      return HttpClient.newHttpClient()
          .send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + operator.healthPort() + path))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
    } catch (IOException | InterruptedException e) {
      throw new AssertionError("GET " + path, e);
    }
  }

  /** The Events kubectl describe shows on a StorageBackend (cluster-scoped). */
  List<String> eventReasons(String backend) {
    StorageBackend now = client.resources(StorageBackend.class).withName(backend).get();
    return DescribedEvents.reasons(
        client, "StorageBackend", null, backend, now == null ? null : now.getMetadata().getUid());
  }

  /** The Events kubectl describe shows on a namespaced object of that name. */
  List<String> eventReasons(String namespace, String name) {
    return DescribedEvents.reasons(client, null, namespace, name, null);
  }

  StorageBackend apply(String yaml) {
    return apply(client, yaml);
  }

  /**
   * A backend its CRD's schema refuses, as stored before the CRD tightened (on a real server while
   * the fixture opens the CRD for the moment).
   */
  StorageBackend applyUnvalidated(String yaml) {
    return cluster.createUnvalidated(backend(yaml));
  }

  private static StorageBackend apply(KubernetesClient writer, String yaml) {
    return writer.resource(backend(yaml)).create();
  }

  private static StorageBackend backend(String yaml) {
    return Serialization.unmarshal(
        "apiVersion: thinvol.io/v1alpha1\nkind: StorageBackend\n" + yaml, StorageBackend.class);
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
