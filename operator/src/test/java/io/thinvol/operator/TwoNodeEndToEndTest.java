package io.thinvol.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.storage.StorageClass;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.thinvol.api.BackendNames;
import io.thinvol.testing.StrictCluster;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * Base of the tests of data that crosses nodes, end to end on this host: the operator against the
 * strict mock API server, the drivers of two nodes in processes of their own on real loop devices
 * ({@link TwoNodeDrivers}), and the storage controllers a bare API server lacks played against them
 * ({@link PlayedStorageControllers}): claims are provisioned, snapshots made and restored by the
 * real drivers, as in a cluster.
 */
abstract class TwoNodeEndToEndTest extends MockClusterTest {

  static final long MIB = 1L << 20;
  static final String BACKEND = "local";
  static final String DRIVER = BackendNames.driver(BACKEND);
  static final String APPS = DriverOnHost.CLAIM_NAMESPACE;
  static final String A = TwoNodeDrivers.A;
  static final String B = TwoNodeDrivers.B;

  /** A cross-node copy on a machine shared with builds takes its time. */
  private static final Duration COPYING = Duration.ofMinutes(3);

  TwoNodeDrivers nodes;
  PlayedStorageControllers controllers;

  /**
   * Kubernetes' default lease times: the drivers' processes copying on a host shared with builds
   * can keep the operator's renewals waiting for longer than the base tests' short lease.
   */
  @Override
  LeaseTimes leaseTimes() {
    return new LeaseTimes(Duration.ofSeconds(15), Duration.ofSeconds(10), Duration.ofSeconds(2));
  }

  @BeforeEach
  void startNodes() throws Exception {
    assumeTrue(
        cluster instanceof StrictCluster,
        "mock only: the drivers' TokenReviews are answered by an expectation; a real server"
            + " could review neither the drivers' nor the operator's token of this test");
    ReviewedTokens.answer(((StrictCluster) cluster).mock());
    DriverOnHost.prepareCluster(client, A, B);
    apply("metadata:\n  name: " + BACKEND + "\n");
    Secret tls = namespaced(Secret.class, BackendNames.ADDONS_TLS_SECRET);
    nodes = TwoNodeDrivers.start(client, NAMESPACE, BACKEND, tls);
    registerDriver(A, DRIVER);
    registerDriver(B, DRIVER);
    clusterScoped(StorageClass.class, BACKEND);
    await(
        "the backend's VolumeSnapshotClass",
        () ->
            client
                .genericKubernetesResources(NodeSnapshotter.API_VERSION, "VolumeSnapshotClass")
                .withName(BACKEND)
                .get());
    controllers = new PlayedStorageControllers(client, nodes, DRIVER);
  }

  @AfterEach
  void stopNodes() throws Exception {
    try (PlayedStorageControllers stopping = controllers) {
      // first: they call the drivers
    }
    List<String> leaks = nodes == null ? List.of() : nodes.release();
    assertThat(leaks).as("mounts or loop devices left behind").isEmpty();
  }

  /**
   * Claim {@code name} of the backend's class, made for a pod scheduled to {@code node} (the
   * scheduler's selected-node annotation), from {@code dataSource} (a VolumeSnapshot's name, or
   * null): provisioned there and bound.
   */
  PersistentVolumeClaim provisioned(String name, String node, String dataSource) {
    PersistentVolumeClaimBuilder claim =
        new PersistentVolumeClaimBuilder(claim(APPS, name, BACKEND))
            .editMetadata()
            .addToAnnotations(PlayedProvisioner.SELECTED_NODE, node)
            .endMetadata();
    if (dataSource != null) {
      claim
          .editSpec()
          .withNewDataSource("snapshot.storage.k8s.io", "VolumeSnapshot", dataSource)
          .withNewDataSourceRef("snapshot.storage.k8s.io", "VolumeSnapshot", dataSource, null)
          .endSpec();
    }
    client.resource(claim.build()).create();
    return awaitCopying(
        "claim " + name + " bound on " + node,
        () -> {
          PersistentVolumeClaim now =
              client.persistentVolumeClaims().inNamespace(APPS).withName(name).get();
          return "Bound".equals(now.getStatus().getPhase()) ? now : null;
        });
  }

  /** VolumeSnapshot {@code name} of claim {@code claim}, ready to use. */
  GenericKubernetesResource readySnapshot(String name, String claim) {
    client
        .resource(
            Serialization.unmarshal(
                """
                apiVersion: snapshot.storage.k8s.io/v1
                kind: VolumeSnapshot
                metadata:
                  name: %s
                  namespace: %s
                spec:
                  volumeSnapshotClassName: %s
                  source:
                    persistentVolumeClaimName: %s
                """
                    .formatted(name, APPS, BACKEND, claim),
                GenericKubernetesResource.class))
        .create();
    return awaitCopying(
        "VolumeSnapshot " + name + " ready",
        () -> {
          GenericKubernetesResource now =
              NodeSnapshotter.objects(client, "VolumeSnapshot")
                  .inNamespace(APPS)
                  .withName(name)
                  .get();
          return Serialization.jsonMapper()
                  .valueToTree(now)
                  .at("/status/readyToUse")
                  .asBoolean(false)
              ? now
              : null;
        });
  }

  /** Waits as long as a copy between nodes may take; a timeout names what the controllers met. */
  <T> T awaitCopying(String what, Supplier<T> probe) {
    try {
      return await(what, COPYING, probe);
    } catch (AssertionError e) {
      throw new AssertionError(
          e.getMessage() + "; the played controllers met: " + controllers.failures(), e);
    }
  }
}
