package io.thinvol.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.thinvol.addons.ClusterFixtures;
import io.thinvol.api.kube.Conditions;
import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.testing.DescribedEvents;
import io.thinvol.testing.PlayedControllers;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A node that goes away for good while claims are bound to volumes on it: deleted, or tainted
 * out-of-service. Within seconds each claim has a Warning NodeLost saying what to do, the
 * StorageBackend the condition VolumesOnLostNodes naming nodes and claims, and the metric a series
 * per lost node; a node that is merely NotReady is not lost; a node made again under its name, or
 * the taint taken off, clears the report.
 */
class NodeLossReportTest extends MoveClusterTest {

  private PlayedNodeLifecycle nodes;

  @BeforeEach
  void moreClaims() {
    nodes = new PlayedNodeLifecycle(client);
    bound("logs", "node-a");
    bound("cache", "node-c");
    bound("orders", "node-b");
  }

  @Test
  void aDeletedNodeIsReportedOnEachClaimOnTheBackendAndInTheMetricUntilItComesBack() {
    nodes.unreachable("node-b"); // NotReady is no loss
    nodes.outOfService("node-c");

    Condition outOfService = awaitLost("node node-c");
    assertThat(outOfService.getMessage())
        .isEqualTo(
            "1 claim is bound to volumes on lost nodes; their pods cannot start and their data is"
                + " only on those nodes' disks: node node-c (it is tainted"
                + " node.kubernetes.io/out-of-service): 1 claim, apps/cache. Each claim's Warning"
                + " NodeLost says what to do; see docs/moves.md#a-node-lost-for-good");
    assertThat(outOfService.getReason()).isEqualTo("NodesLost");

    nodes.delete("node-a");
    Condition both = awaitLost("node node-a");
    assertThat(both.getMessage())
        .startsWith(
            "3 claims are bound to volumes on lost nodes; their pods cannot start and their data"
                + " is only on those nodes' disks: node node-a (its Node was deleted): 2 claims,"
                + " apps/data, apps/logs; node node-c (it is tainted"
                + " node.kubernetes.io/out-of-service): 1 claim, apps/cache.")
        .doesNotContain("node-b");
    Event told = awaitClaimWarning("data");
    assertThat(told.getType()).isEqualTo("Warning");
    assertThat(told.getMessage())
        .isEqualTo(
            "its PersistentVolume pv-data is on node node-a, which is lost (its Node was deleted):"
                + " no pod can use this claim, and its data is only on that node's disk. Bring"
                + " node node-a back under that name with its disk and the claim works again as"
                + " it was; or delete this claim and create it again, empty or restored from a"
                + " VolumeSnapshot held on another node (a snapshot of this claim is on node-a"
                + " too); see docs/moves.md#a-node-lost-for-good");
    awaitClaimWarning("logs");
    awaitClaimWarning("cache");
    assertThat(claimEvents("orders")).isEmpty();
    assertThat(eventReasons(BACKEND)).contains("VolumesOnLostNodes");
    assertThat(lostSeries())
        .containsExactly(
            "thinvol_operator_volumes_on_lost_nodes{backend=\"local\",node=\"node-a\"} 2",
            "thinvol_operator_volumes_on_lost_nodes{backend=\"local\",node=\"node-c\"} 1");

    nodes.recreate("node-a");
    nodes.ready("node-c"); // the admin took the taint off
    Condition cleared =
        await(
            "the report cleared",
            () -> condition().filter(c -> "False".equals(c.getStatus())).orElse(null));
    assertThat(cleared.getReason()).isEqualTo("NoneLost");
    assertThat(lostSeries()).isEmpty();
    assertThat(eventReasons(BACKEND)).contains("NoVolumesOnLostNodes");
    assertThat(claimEvents("data")).containsOnly("NodeLost");
  }

  @Test
  void aClaimDeletedOffALostNodeLeavesTheReport() {
    nodes.delete("node-c");
    awaitLost("node node-c");
    client.persistentVolumeClaims().inNamespace(APPS).withName("cache").delete();

    await(
        "the claim no longer reported",
        () -> condition().filter(c -> "False".equals(c.getStatus())).orElse(null));
    assertThat(lostSeries()).isEmpty();
  }

  /** A claim bound to a volume of the backend pinned to {@code node}. */
  private void bound(String name, String node) {
    PersistentVolume volume = volume("pv-" + name, "vol-" + name, node, name);
    PersistentVolumeClaim claim = ClusterFixtures.claim(APPS, name, BACKEND);
    client.resource(claim).create();
    PlayedControllers.bind(client, volume, claim);
  }

  private Optional<Condition> condition() {
    StorageBackend backend = client.resources(StorageBackend.class).withName(BACKEND).get();
    return backend == null || backend.getStatus() == null
        ? Optional.empty()
        : Conditions.find(backend.getStatus().getConditions(), "VolumesOnLostNodes");
  }

  private Condition awaitLost(String naming) {
    return await(
        "VolumesOnLostNodes naming " + naming,
        () ->
            condition()
                .filter(c -> "True".equals(c.getStatus()) && c.getMessage().contains(naming))
                .orElse(null));
  }

  private Event awaitClaimWarning(String claim) {
    return await(
        "NodeLost on " + claim,
        () ->
            DescribedEvents.events(client, "PersistentVolumeClaim", APPS, claim, claimUid(claim))
                .stream()
                .filter(e -> "NodeLost".equals(e.getReason()))
                .findFirst()
                .orElse(null));
  }

  private List<String> claimEvents(String claim) {
    return DescribedEvents.reasons(client, "PersistentVolumeClaim", APPS, claim, claimUid(claim));
  }

  private String claimUid(String claim) {
    return client
        .persistentVolumeClaims()
        .inNamespace(APPS)
        .withName(claim)
        .get()
        .getMetadata()
        .getUid();
  }

  private List<String> lostSeries() {
    return get("/metrics")
        .body()
        .lines()
        .filter(l -> l.startsWith("thinvol_operator_volumes_on_lost_nodes{"))
        .toList();
  }
}
