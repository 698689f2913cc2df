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
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * An operator upgraded with Helm without the chart's {@code crds/} applied (Helm never upgrades
 * them): the cluster lacks the VolumeMove CRD. On a real cluster the operator crash-looped on
 * {@code GET .../volumemoves ... Not Found} and reconciled nothing. Now StorageBackends and
 * reclamation work, every backend and {@code /readyz} say what waits and how to install it, and the
 * moves and the node evacuation start once the CRD is applied, without a restart.
 */
class CrdMissingTest extends MockClusterTest {

  private static final String CRD = "volumemoves.thinvol.io";
  private static final String INSTALL =
      "kubectl apply -f charts/thinvol/crds/volumemoves.thinvol.io-v1.yml";
  private static final String NODE = "node-a";
  private static final String APPS = "apps";

  /** The fixture's cluster without the VolumeMove CRD, as the upgrade left it. */
  @Override
  TestCluster startCluster() {
    TestCluster cluster = TestCluster.start();
    var crds = cluster.admin().apiextensions().v1().customResourceDefinitions();
    crds.withName(CRD).delete();
    crds.withName(CRD).waitUntilCondition(crd -> crd == null, 60, TimeUnit.SECONDS);
    await(
        "discovery without volumemoves",
        () ->
            !ClusterFacts.servedResources(
                    cluster.admin(), HasMetadata.getApiVersion(VolumeMove.class))
                .contains("volumemoves"));
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

  @Test
  void backendsAndReclaimWorkTheMissingKindIsReportedAndMovesStartOnceItIsApplied()
      throws Exception {
    client
        .resource(new NodeBuilder().withNewMetadata().withName(NODE).endMetadata().build())
        .create();
    apply("metadata:\n  name: local\n");
    namespaced(DaemonSet.class, "thinvol-local-node");
    playDaemonSetController("thinvol-local-node", 1, 1);
    registerDriver(NODE, BackendNames.driver("local"));
    StorageBackend ready = awaitReady("local");

    Condition degraded =
        await("Degraded for the missing CRD", () -> degradedFor("local", "CrdMissing"));
    assertThat(degraded.getMessage())
        .contains("CRD " + CRD + " is not installed")
        .contains("VolumeMoves and node evacuation, and VolumeReplications wait")
        .contains(INSTALL);
    assertThat(StatusModel.isReady(ready.getStatus())).isTrue();
    await(
        "the Warning on the backend",
        () ->
            DescribedEvents.events(
                    client, "StorageBackend", null, "local", ready.getMetadata().getUid())
                .stream()
                .anyMatch(
                    e ->
                        e.getType().equals("Warning")
                            && e.getReason().equals("Degraded")
                            && e.getMessage().equals(degraded.getMessage())));
    HttpResponse<String> readyz = readyz();
    assertThat(readyz.statusCode()).isEqualTo(200);
    assertThat(readyz.body()).startsWith("ok; CRD " + CRD).contains(INSTALL).endsWith("\n");

    reclaimSucceeds();

    // An evacuation asked for while the kind is missing waits for it too.
    client
        .nodes()
        .withName(NODE)
        .edit(
            n ->
                new NodeBuilder(n)
                    .editMetadata()
                    .addToAnnotations(VolumeMove.EVACUATE, "true")
                    .endMetadata()
                    .build());
    assertThat(operatorDecisions())
        .as("the operator never asked for VolumeMoves while they were not served")
        .noneMatch(d -> "volumemoves".equals(d.request().resource()));

    cluster.install(List.of(crdFromTheChart()));

    await(
        "the evacuation's move of the claim",
        () -> moves().stream().anyMatch(m -> m.getMetadata().getName().equals("evacuate-pv-a")));
    createMove("nothing");
    await(
        "the move reconciled",
        () -> {
          VolumeMove now =
              client.resources(VolumeMove.class).inNamespace(APPS).withName("nothing").get();
          return now.getStatus() != null && now.getStatus().getPhase() == MovePhase.Failed;
        });
    await("Degraded no more", () -> degradedFor("local", "AllNodesReady"));
    assertThat(readyz().body()).isEqualTo("ok\n");
  }

  private void reclaimSucceeds() {
    cluster.namespace(APPS);
    PlayedControllers.createWithStatus(
        client,
        ClusterFixtures.volume("pv-a", BackendNames.driver("local"), "vol-a", NODE, APPS, "data"));
    PersistentVolumeClaim claim = ClusterFixtures.boundClaim(APPS, "data", "local", "pv-a");
    PlayedControllers.createWithStatus(client, claim);
    PlayedControllers.createWithStatus(
        client, ClusterFixtures.driverPod(NAMESPACE, "local", NODE, "10.0.0.1", 9070));
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

  private Condition degradedFor(String backend, String reason) {
    StorageBackend now = client.resources(StorageBackend.class).withName(backend).get();
    if (now.getStatus() == null) {
      return null;
    }
    return now.getStatus().getConditions().stream()
        .filter(c -> c.getType().equals(StatusModel.DEGRADED) && c.getReason().equals(reason))
        .findFirst()
        .orElse(null);
  }

  /** The CRD as the admin applies it: the chart's file. */
  private static CustomResourceDefinition crdFromTheChart() {
    return Serialization.unmarshal(
        RepoFiles.read("charts/thinvol/crds/" + CRD + "-v1.yml"), CustomResourceDefinition.class);
  }

  private VolumeMove createMove(String name) {
    VolumeMove move = new VolumeMove();
    move.setMetadata(new ObjectMetaBuilder().withName(name).withNamespace(APPS).build());
    move.setSpec(new VolumeMoveSpec());
    move.getSpec().setPersistentVolumeClaim("no-such-claim");
    return client.resource(move).create();
  }

  private List<VolumeMove> moves() {
    return client.resources(VolumeMove.class).inNamespace(APPS).list().getItems();
  }

  private HttpResponse<String> readyz() throws IOException, InterruptedException {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + operator.healthPort() + "/readyz"))
                .build(),
            HttpResponse.BodyHandlers.ofString());
  }
}
