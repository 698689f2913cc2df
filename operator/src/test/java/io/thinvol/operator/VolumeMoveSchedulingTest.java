package io.thinvol.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.storage.CSIStorageCapacityBuilder;
import io.thinvol.addons.ClusterFixtures;
import io.thinvol.api.v1alpha1.MovePhase;
import io.thinvol.api.v1alpha1.VolumeMove;
import io.thinvol.testing.PlayedControllers;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Where a move goes when its spec names no node, and how many copy from one node at once. */
class VolumeMoveSchedulingTest extends MoveClusterTest {

  /** One move at a time copies from a node. */
  @Override
  String backendSpec() {
    return "spec:\n  moves:\n    maxConcurrentPerNode: 1\n";
  }

  @Test
  void theNodeWithTheMostCapacityTakesAMoveWithoutTarget() {
    capacity("node-b", "10Gi");
    capacity("node-c", "20Gi");
    storage.stuckSnapshots.add(CLAIM);
    createMove("anywhere", "  persistentVolumeClaim: data\n");
    VolumeMove accepted = awaitPhase("anywhere", MovePhase.PreCopying);
    assertThat(accepted.getStatus().getTargetNode()).isEqualTo("node-c");
  }

  @Test
  void aNodeBeingEvacuatedOrCordonedTakesNoMove() {
    capacity("node-b", "10Gi");
    capacity("node-c", "20Gi");
    client
        .nodes()
        .withName("node-c")
        .edit(
            n -> {
              n.getMetadata().setAnnotations(Map.of(VolumeMove.EVACUATE, "true"));
              return n;
            });
    storage.stuckSnapshots.add(CLAIM);
    createMove("anywhere", "  persistentVolumeClaim: data\n");
    assertThat(awaitPhase("anywhere", MovePhase.PreCopying).getStatus().getTargetNode())
        .isEqualTo("node-b");
  }

  @Test
  void movesFromOneNodeWaitForACopySlot() {
    secondClaim("logs", "pv-logs");
    storage.stuckSnapshots.add(CLAIM);
    createMove("data-to-b", "  persistentVolumeClaim: data\n  targetNode: node-b\n");
    awaitPhase("data-to-b", MovePhase.PreCopying);
    createMove("logs-to-b", "  persistentVolumeClaim: logs\n  targetNode: node-b\n");
    await(
        "the second move waiting for the slot",
        () -> {
          VolumeMove now = move("logs-to-b");
          return now.getStatus() != null
              && now.getStatus().getPhase() == MovePhase.Pending
              && now.getStatus().getMessage().contains("waiting for a copy slot on node node-a");
        });
    assertThat(move("logs-to-b").getStatus().getMessage())
        .contains("apps/data-to-b")
        .contains("maxConcurrentPerNode of the StorageBackend is 1");

    storage.stuckSnapshots.remove(CLAIM);
    awaitPhase("data-to-b", MovePhase.WaitingForCutOver);
    awaitPhase("logs-to-b", MovePhase.Succeeded); // unused by any pod: it cuts over at once
    assertThat(move("data-to-b").getStatus().getPhase()).isEqualTo(MovePhase.WaitingForCutOver);
  }

  private void capacity(String node, String size) {
    client
        .resource(
            new CSIStorageCapacityBuilder()
                .withNewMetadata()
                .withName("capacity-" + node)
                .withNamespace(NAMESPACE)
                .endMetadata()
                .withStorageClassName(BACKEND)
                .withNodeTopology(
                    new LabelSelectorBuilder()
                        .withMatchLabels(Map.of("topology.thinvol.io/node", node))
                        .build())
                .withCapacity(new Quantity(size))
                .build())
        .create();
  }

  private void secondClaim(String name, String volumeName) {
    PersistentVolume volume =
        new PersistentVolumeBuilder(
                ClusterFixtures.volume(volumeName, DRIVER, "vol-" + name, "node-a", APPS, name))
            .editSpec()
            .withPersistentVolumeReclaimPolicy("Delete")
            .endSpec()
            .build();
    PlayedControllers.createWithStatus(client, volume);
    PersistentVolumeClaim claim = ClusterFixtures.claim(APPS, name, BACKEND);
    claim.getMetadata().setAnnotations(new java.util.HashMap<>());
    client.resource(claim).create();
    PlayedControllers.bind(client, volume, claim);
  }
}
