package io.thinvol.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.grpc.Status;
import io.thinvol.addons.ClusterFixtures;
import io.thinvol.addons.call.ReclaimCaller;
import io.thinvol.addons.call.Usage;
import io.thinvol.api.BackendNames;
import io.thinvol.api.v1alpha1.MovePhase;
import io.thinvol.api.v1alpha1.ReclaimSpaceJob;
import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.api.v1alpha1.VolumeMove;
import io.thinvol.api.v1alpha1.VolumeMoveSpec;
import io.thinvol.operator.model.StatusModel;
import io.thinvol.testing.DescribedEvents;
import io.thinvol.testing.PlayedControllers;
import io.thinvol.testing.RepoFiles;
import io.thinvol.testing.TestCluster;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * An operator upgraded with Helm without the chart's {@code crds/} applied (Helm never upgrades
 * them): the cluster lacks the CRDs of {@link #missingCrds()}. StorageBackends and reclamation must
 * work, every backend and {@code /readyz} say what waits and how to install it, and what waits
 * starts once the CRDs are applied, without a restart.
 */
abstract class UpgradeWithoutCrdsTest extends MockClusterTest {

  static final String NODE = "node-a";
  static final String APPS = "apps";
  static final String BACKEND = "local";

  /** The CRDs the upgrade left out. */
  abstract List<String> missingCrds();

  /** The fixture's cluster without {@link #missingCrds()}, as the upgrade left it. */
  @Override
  TestCluster startCluster() {
    TestCluster cluster = TestCluster.start();
    var crds = cluster.admin().apiextensions().v1().customResourceDefinitions();
    for (String crd : missingCrds()) {
      crds.withName(crd).delete();
      crds.withName(crd).waitUntilCondition(gone -> gone == null, 60, TimeUnit.SECONDS);
    }
    List<String> resources =
        missingCrds().stream().map(c -> c.substring(0, c.indexOf('.'))).toList();
    await(
        "discovery without " + resources,
        () ->
            ClusterFacts.servedResources(
                    cluster.admin(), HasMetadata.getApiVersion(StorageBackend.class))
                .stream()
                .noneMatch(resources::contains));
    return cluster;
  }

  /** The drivers reclaim 256 MiB of every volume. */
  @Override
  ReclaimCaller caller() {
    return (endpoint, service, volumeId, timeout) ->
        volumeId.equals("vol-a")
            ? CompletableFuture.completedFuture(Usage.of(300L << 20, 44L << 20))
            : CompletableFuture.failedFuture(Status.NOT_FOUND.asRuntimeException());
  }

  /**
   * A backend on one node, Ready and Degraded for the missing CRDs with a Warning saying so; the
   * Degraded condition's message.
   */
  String readyBackendDegradedForTheMissingCrds() {
    client
        .resource(new NodeBuilder().withNewMetadata().withName(NODE).endMetadata().build())
        .create();
    apply("metadata:\n  name: " + BACKEND + "\n");
    namespaced(DaemonSet.class, "thinvol-" + BACKEND + "-node");
    playDaemonSetController("thinvol-" + BACKEND + "-node", 1, 1);
    registerDriver(NODE, BackendNames.driver(BACKEND));
    StorageBackend ready = awaitReady(BACKEND);
    assertThat(StatusModel.isReady(ready.getStatus())).isTrue();

    Condition degraded = await("Degraded for the missing CRDs", () -> degradedFor("CrdMissing"));
    await(
        "the Warning on the backend",
        () ->
            DescribedEvents.events(
                    client, "StorageBackend", null, BACKEND, ready.getMetadata().getUid())
                .stream()
                .anyMatch(
                    e ->
                        e.getType().equals("Warning")
                            && e.getReason().equals("Degraded")
                            && e.getMessage().equals(degraded.getMessage())));
    return degraded.getMessage();
  }

  /** A ReclaimSpaceJob of a bound claim on the backend succeeds. */
  void reclaimSucceeds() {
    cluster.namespace(APPS);
    PlayedControllers.createWithStatus(
        client,
        ClusterFixtures.volume("pv-a", BackendNames.driver(BACKEND), "vol-a", NODE, APPS, "data"));
    PersistentVolumeClaim claim = ClusterFixtures.boundClaim(APPS, "data", BACKEND, "pv-a");
    PlayedControllers.createWithStatus(client, claim);
    PlayedControllers.createWithStatus(
        client, ClusterFixtures.driverPod(NAMESPACE, BACKEND, NODE, "10.0.0.1", 9070));
    client
        .resource(
            Serialization.unmarshal(
                "apiVersion: thinvol.io/v1alpha1\nkind: ReclaimSpaceJob\nmetadata:\n  name: once\n"
                    + "  namespace: apps\nspec:\n  target:\n    persistentVolumeClaim: data\n",
                ReclaimSpaceJob.class))
        .create();
    ReclaimSpaceJob done =
        await(
            "the job's result",
            () -> {
              ReclaimSpaceJob now =
                  client.resources(ReclaimSpaceJob.class).inNamespace(APPS).withName("once").get();
              return now.getStatus() != null && now.getStatus().getResult() != null ? now : null;
            });
    assertThat(done.getStatus().getResult()).isEqualTo("Succeeded");
  }

  /** A VolumeMove of a claim that does not exist is reconciled: it fails. */
  void aMoveOfNoClaimFails(String name) {
    VolumeMove move = new VolumeMove();
    move.setMetadata(new ObjectMetaBuilder().withName(name).withNamespace(APPS).build());
    move.setSpec(new VolumeMoveSpec());
    move.getSpec().setPersistentVolumeClaim("no-such-claim");
    client.resource(move).create();
    await(
        "the move reconciled",
        () -> {
          VolumeMove now =
              client.resources(VolumeMove.class).inNamespace(APPS).withName(name).get();
          return now.getStatus() != null && now.getStatus().getPhase() == MovePhase.Failed;
        });
  }

  /** The backend's Degraded condition with {@code reason}, or null. */
  Condition degradedFor(String reason) {
    StorageBackend now = client.resources(StorageBackend.class).withName(BACKEND).get();
    if (now.getStatus() == null) {
      return null;
    }
    return now.getStatus().getConditions().stream()
        .filter(c -> c.getType().equals(StatusModel.DEGRADED) && c.getReason().equals(reason))
        .findFirst()
        .orElse(null);
  }

  /** The missing CRDs as the admin applies them: the chart's files. */
  void applyTheChartsCrds() {
    cluster.install(
        missingCrds().stream()
            .map(
                crd ->
                    Serialization.unmarshal(
                        RepoFiles.read("charts/thinvol/crds/" + crd + "-v1.yml"),
                        CustomResourceDefinition.class))
            .toList());
  }

  /** The command the operator's messages give to install {@code crd}. */
  static String install(String crd) {
    return "kubectl apply -f charts/thinvol/crds/" + crd + "-v1.yml";
  }
}
