package io.thinvol.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.thinvol.addons.ClusterFixtures;
import io.thinvol.api.v1alpha1.MovePhase;
import io.thinvol.api.v1alpha1.VolumeMove;
import io.thinvol.testing.DescribedEvents;
import io.thinvol.testing.PlayedControllers;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The whole operator (the evacuator and the move reconciler) on a cluster of one node, as the e2e
 * kit is: an evacuation of that node makes a move for each claim, which waits in Pending for a node
 * to take it; the annotation removed withdraws them and leaves the claims as they were.
 */
class EvacuationOfTheOnlyNodeTest extends MockClusterTest {

  private static final String NODE = "node-a";
  private static final String BACKEND = "local";
  private static final String DRIVER = "local.thinvol.io";
  private static final String APPS = "apps";

  @Test
  void itsMovesWaitForANodeAndAreWithdrawnWithTheAnnotation() {
    apply("metadata:\n  name: " + BACKEND + "\n");
    EvacuatedNodes.create(client, NODE);
    registerDriver(NODE, DRIVER);
    cluster.namespace(APPS);
    boundClaim("data-a", "pv-a");
    boundClaim("data-b", "pv-b");

    annotate("true");

    List<VolumeMove> pending =
        await(
            "2 moves of " + NODE + " Pending",
            () -> {
              List<VolumeMove> moves = moves();
              return moves.size() == 2
                      && moves.stream()
                          .allMatch(
                              m ->
                                  m.getStatus() != null
                                      && m.getStatus().getPhase() == MovePhase.Pending
                                      && m.getStatus().getMessage() != null)
                  ? moves
                  : null;
            });
    assertThat(pending)
        .extracting(m -> m.getMetadata().getName(), m -> m.getSpec().getPersistentVolumeClaim())
        .containsExactlyInAnyOrder(
            org.assertj.core.groups.Tuple.tuple("evacuate-pv-a", "data-a"),
            org.assertj.core.groups.Tuple.tuple("evacuate-pv-b", "data-b"));
    assertThat(pending)
        .extracting(m -> m.getStatus().getMessage())
        .containsOnly(
            "no node can take the volume: none other than node-a runs driver local.thinvol.io,"
                + " is schedulable, is Ready and is not being evacuated");
    await("Evacuating on " + NODE, () -> nodeReasons().contains("Evacuating"));

    annotate(null);

    await("the evacuation's moves withdrawn", () -> moves().isEmpty());
    await("EvacuationStopped on " + NODE, () -> nodeReasons().contains("EvacuationStopped"));
    for (String claim : List.of("data-a", "data-b")) {
      PersistentVolumeClaim now =
          client.persistentVolumeClaims().inNamespace(APPS).withName(claim).get();
      assertThat(now.getSpec().getVolumeName()).as(claim).isEqualTo("pv-" + claim.substring(5));
      assertThat(now.getStatus().getPhase()).as(claim).isEqualTo("Bound");
    }
  }

  private void boundClaim(String claim, String volumeName) {
    PersistentVolume volume =
        new PersistentVolumeBuilder(
                ClusterFixtures.volume(volumeName, DRIVER, "vol-" + claim, NODE, APPS, claim))
            .editSpec()
            .withStorageClassName(BACKEND)
            .endSpec()
            .build();
    PlayedControllers.createWithStatus(client, volume);
    PersistentVolumeClaim created =
        client.resource(ClusterFixtures.claim(APPS, claim, BACKEND)).create();
    PlayedControllers.bind(client, volume, created);
  }

  private void annotate(String value) {
    EvacuatedNodes.annotate(client, NODE, value);
  }

  private List<VolumeMove> moves() {
    return EvacuatedNodes.moves(client, NODE);
  }

  private List<String> nodeReasons() {
    return DescribedEvents.reasons(client, "Node", null, NODE, NODE);
  }
}
