package io.thinvol.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.javaoperatorsdk.operator.Operator;
import io.thinvol.addons.ClusterFixtures;
import io.thinvol.api.BackendNames;
import io.thinvol.api.v1alpha1.MovePhase;
import io.thinvol.api.v1alpha1.VolumeMove;
import io.thinvol.api.v1alpha1.VolumeMoveSpec;
import io.thinvol.api.v1alpha1.VolumeMoveStatus;
import io.thinvol.operator.evacuate.NodeEvacuator;
import io.thinvol.operator.model.Settings;
import io.thinvol.testing.DescribedEvents;
import io.thinvol.testing.PlayedControllers;
import io.thinvol.testing.StrictApiServer;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Node evacuation: a node annotated {@code thinvol.io/evacuate=true} gets a VolumeMove for every
 * thinvol claim on it, once; the annotation removed takes back the moves that have not begun to cut
 * over. The evacuator runs alone: no move reconciler runs here, the test plays it by writing the
 * moves' statuses. (With the move reconciler, on a node that is the only one: {@link
 * EvacuationOfTheOnlyNodeTest}.)
 */
class NodeEvacuationTest extends MockClusterTest {

  private static final String NODE = "node-x";
  private static final String OTHER_NODE = "node-y";
  private static final String DRIVER = BackendNames.driver("local");

  /** Only the evacuator, configured as the whole operator is, so the played statuses stand. */
  @Override
  Runnable startOperator(Settings settings) {
    Operator evacuator =
        new Operator(
            overrider -> {
              overrider
                  .withKubernetesClient(operatorClient)
                  .withCloseClientOnStop(false)
                  .withReconciliationTerminationTimeout(OperatorRunner.RECONCILE_TERMINATION);
              tuning().accept(overrider);
            });
    evacuator.register(new NodeEvacuator(operatorClient, Clock.systemUTC()));
    evacuator.start();
    return evacuator::stop;
  }

  @BeforeEach
  void nodesAndNamespaces() {
    for (String node : List.of(NODE, OTHER_NODE)) {
      EvacuatedNodes.create(client, node);
    }
    cluster.namespace("apps");
    cluster.namespace("db");
  }

  @Test
  void eachThinvolClaimOnTheNodeGetsOneMoveAcrossReconcilesAndRestarts() throws Exception {
    volume("pv-a", DRIVER, NODE, "apps", "data-a");
    volume("pv-b", DRIVER, NODE, "apps", "data-b");
    volume("pv-c", DRIVER, NODE, "db", "data-c");
    volume("pv-foreign", "other.csi.example.com", NODE, "apps", "foreign");
    volume("pv-elsewhere", DRIVER, OTHER_NODE, "apps", "elsewhere");

    annotate(NODE, "true");

    List<VolumeMove> moves = awaitMoves(3);
    assertThat(moves)
        .extracting(
            m -> m.getMetadata().getNamespace(),
            m -> m.getMetadata().getName(),
            m -> m.getSpec().getPersistentVolumeClaim())
        .containsExactlyInAnyOrder(
            org.assertj.core.groups.Tuple.tuple("apps", "evacuate-pv-a", "data-a"),
            org.assertj.core.groups.Tuple.tuple("apps", "evacuate-pv-b", "data-b"),
            org.assertj.core.groups.Tuple.tuple("db", "evacuate-pv-c", "data-c"));
    assertThat(moves)
        .allSatisfy(
            move -> {
              assertThat(move.getMetadata().getLabels())
                  .containsEntry(VolumeMove.EVACUATED_NODE, NODE);
              assertThat(move.getSpec().getTargetNode()).as("the move chooses").isNull();
              assertThat(move.getMetadata().getOwnerReferences()).as("moves outlive").isEmpty();
            });
    // one Event, or more where a volume reached the operator's cache after the annotation
    Event evacuating = awaitEvent("Evacuating", "3 volumes to move off node-x");
    assertThat(evacuating.getType()).isEqualTo("Normal");
    assertThat(evacuating.getMessage())
        .endsWith("; kubectl get volmove -A -l thinvol.io/evacuated-node=node-x");

    // Reconciles again: a change of one of its volumes; a new volume shows it has run.
    touch("pv-a");
    volume("pv-d", DRIVER, NODE, "apps", "data-d");
    awaitMoves(4);
    assertThat(moveCreates()).as("the operator's creates of moves").isEqualTo(4);

    restartOperator(settings());
    volume("pv-e", DRIVER, NODE, "db", "data-e");
    List<VolumeMove> after = awaitMoves(5);
    assertThat(moveCreates()).as("the operator's creates of moves").isEqualTo(5);
    assertThat(after)
        .filteredOn(m -> m.getMetadata().getName().matches("evacuate-pv-[abc]"))
        .extracting(m -> m.getMetadata().getUid())
        .containsExactlyInAnyOrderElementsOf(
            moves.stream().map(m -> m.getMetadata().getUid()).toList());
    awaitEvent("Evacuating", "5 volumes to move off node-x (1 new)");
    assertThat(nodeEvents())
        .filteredOn(e -> e.getReason().equals("Evacuating"))
        .extracting(Event::getMessage)
        .filteredOn(m -> m.matches("[45] volumes .*"))
        .as("one Event for each new volume, none for a reconcile or restart that made nothing")
        .hasSize(2);
  }

  @Test
  void removingTheAnnotationWithdrawsTheMovesNotYetCuttingOver() {
    for (String pv : List.of("pv-a", "pv-b", "pv-c", "pv-d")) {
      volume(pv, DRIVER, NODE, "apps", "data-" + pv.substring(3));
    }
    annotate(NODE, "true");
    awaitMoves(4);
    // pv-a's move not seen by the move reconciler yet (no phase)
    playMove("evacuate-pv-b", MovePhase.PreCopying, "copying");
    playMove("evacuate-pv-c", MovePhase.WaitingForCutOver, "pods still use the claim");
    playMove("evacuate-pv-d", MovePhase.CuttingOver, "copying the changed blocks");

    annotate(NODE, null);

    await(
        "only the move cutting over left",
        () ->
            movesOfNode().stream()
                .map(m -> m.getMetadata().getName())
                .toList()
                .equals(List.of("evacuate-pv-d")));
    Event stopped = awaitEvent("EvacuationStopped");
    // Where the operator's cache had not seen a status yet, its delete as read is refused (409)
    // and it tries again: two Events, each counting its own.
    assertThat(stopped.getMessage())
        .matches(
            "evacuation of node-x stopped: [123] VolumeMoves? not yet cutting over deleted; [123]"
                + " kept \\(cutting over or ended\\)");
    await("EvacuationStopped Events that count 3 moves deleted", () -> stoppedCount() == 3);
    assertThat(movesOfNode())
        .extracting(m -> m.getMetadata().getName())
        .containsExactly("evacuate-pv-d");
  }

  @Test
  void everyMoveSucceededIsEvacuatedAndAFailedOneStallsUntilDeleted() {
    volume("pv-a", DRIVER, NODE, "apps", "data-a");
    volume("pv-b", DRIVER, NODE, "db", "data-b");
    annotate(NODE, "true");
    awaitMoves(2);

    playMove("evacuate-pv-a", MovePhase.Succeeded, "moved to node-y");
    playMove("evacuate-pv-b", MovePhase.Failed, "no node has room for 1Gi");
    Event stalled = awaitEvent("EvacuationStalled");
    assertThat(stalled.getType()).isEqualTo("Warning");
    assertThat(stalled.getMessage())
        .contains("VolumeMove db/evacuate-pv-b of claim data-b failed: no node has room for 1Gi")
        .contains("Delete the move to try again");

    // Deleted, the failed move is made anew; this one succeeds.
    String failedUid = move("db", "evacuate-pv-b").getMetadata().getUid();
    client.resources(VolumeMove.class).inNamespace("db").withName("evacuate-pv-b").delete();
    VolumeMove again =
        await(
            "a new move of pv-b",
            () -> {
              VolumeMove now = move("db", "evacuate-pv-b");
              return now != null && !now.getMetadata().getUid().equals(failedUid) ? now : null;
            });
    assertThat(again.getStatus()).isNull();
    playMove("evacuate-pv-b", MovePhase.Succeeded, "moved to node-y");

    Event evacuated = awaitEvent("Evacuated");
    assertThat(evacuated.getType()).isEqualTo("Normal");
    assertThat(evacuated.getMessage()).isEqualTo("all 2 volumes moved off node-x");
    List<String> reasons = nodeEvents().stream().map(Event::getReason).toList();
    assertThat(reasons)
        .as("kubectl describe node, in order")
        .containsSubsequence("Evacuating", "EvacuationStalled", "Evacuating", "Evacuated")
        .endsWith("Evacuated")
        .containsOnlyOnce("EvacuationStalled", "Evacuated");
  }

  /**
   * A claim another move moves is left to it, and the node says so: silent, this is what the e2e
   * suite saw as an evacuation's move that never got a status (its move was never made, since an
   * earlier step's move of the same claim had been left behind).
   */
  @Test
  void aClaimThatAnotherMoveMovesIsLeftToItAndTheNodeSaysSo() {
    volume("pv-a", DRIVER, NODE, "apps", "data-a");
    volume("pv-b", DRIVER, NODE, "apps", "data-b");
    VolumeMove anywhere = new VolumeMove();
    anywhere.setMetadata(
        new ObjectMetaBuilder().withName("anywhere").withNamespace("apps").build());
    anywhere.setSpec(new VolumeMoveSpec());
    anywhere.getSpec().setPersistentVolumeClaim("data-a");
    client.resource(anywhere).create();
    playMove("anywhere", MovePhase.Pending, "no node can take the volume");

    annotate(NODE, "true");

    assertThat(awaitMoves(1))
        .extracting(m -> m.getMetadata().getName())
        .containsExactly("evacuate-pv-b");
    Event waits = awaitEvent("EvacuationWaitsForMove");
    assertThat(waits.getType()).isEqualTo("Normal");
    assertThat(waits.getMessage())
        .isEqualTo(
            "PersistentVolumeClaim apps/data-a is moved by VolumeMove apps/anywhere (Pending),"
                + " which this evacuation did not make: its volume is left to that move; if the"
                + " move fails or is deleted, the evacuation moves the claim off node-x itself");

    client.resources(VolumeMove.class).inNamespace("apps").withName("anywhere").delete();
    assertThat(awaitMoves(2))
        .extracting(m -> m.getMetadata().getName())
        .containsExactlyInAnyOrder("evacuate-pv-a", "evacuate-pv-b");
    assertThat(nodeEvents())
        .filteredOn(e -> e.getReason().equals("EvacuationWaitsForMove"))
        .as("said once")
        .hasSize(1);
  }

  @Test
  void aValueOtherThanTrueOrFalseIsAWarningAndChangesNothing() {
    volume("pv-a", DRIVER, NODE, "apps", "data-a");

    annotate(NODE, "yes");

    Event warning = awaitEvent("EvacuateNotUnderstood");
    assertThat(warning.getType()).isEqualTo("Warning");
    assertThat(warning.getMessage())
        .isEqualTo(
            "thinvol.io/evacuate=\"yes\" is not understood, so nothing was started or stopped;"
                + " accepted: \"true\" (move every thinvol volume off this node) or \"false\""
                + " (stop)");
    assertThat(movesOfNode()).as("decided before the Warning").isEmpty();
  }

  private void volume(String name, String driver, String node, String namespace, String claim) {
    PlayedControllers.createWithStatus(
        client, ClusterFixtures.volume(name, driver, "vol-" + name, node, namespace, claim));
  }

  /** A label on a volume: an update event the evacuation sees, which changes nothing for it. */
  private void touch(String volume) {
    client
        .persistentVolumes()
        .withName(volume)
        .edit(
            pv -> {
              pv.getMetadata().setLabels(Map.of("touched", "yes"));
              return pv;
            });
  }

  private void annotate(String node, String value) {
    EvacuatedNodes.annotate(client, node, value);
  }

  /** The move reconciler's status write. */
  private void playMove(String name, MovePhase phase, String message) {
    VolumeMove move =
        client.resources(VolumeMove.class).inAnyNamespace().list().getItems().stream()
            .filter(m -> m.getMetadata().getName().equals(name))
            .findFirst()
            .orElseThrow();
    VolumeMoveStatus status = new VolumeMoveStatus();
    status.setPhase(phase);
    status.setMessage(message);
    status.setSourceNode(NODE);
    move.setStatus(status);
    client.resource(move).updateStatus();
  }

  private VolumeMove move(String namespace, String name) {
    return client.resources(VolumeMove.class).inNamespace(namespace).withName(name).get();
  }

  private List<VolumeMove> movesOfNode() {
    return EvacuatedNodes.moves(client, NODE);
  }

  private List<VolumeMove> awaitMoves(int count) {
    return await(
        count + " moves of " + NODE,
        () -> {
          List<VolumeMove> moves = movesOfNode();
          return moves.size() == count ? moves : null;
        });
  }

  /** The Events {@code kubectl describe node} shows: involved object uid = the node's name. */
  private List<Event> nodeEvents() {
    return DescribedEvents.events(client, "Node", null, NODE, NODE);
  }

  private Event awaitEvent(String reason) {
    return awaitEvent(reason, "");
  }

  private Event awaitEvent(String reason, String messageStart) {
    return await(
        reason + " \"" + messageStart + "...\" on " + NODE,
        () ->
            nodeEvents().stream()
                .filter(e -> e.getReason().equals(reason))
                .filter(e -> e.getMessage().startsWith(messageStart))
                .findFirst()
                .orElse(null));
  }

  /** The moves the EvacuationStopped Events on the node say were deleted. */
  private int stoppedCount() {
    return nodeEvents().stream()
        .filter(e -> e.getReason().equals("EvacuationStopped"))
        .mapToInt(e -> Integer.parseInt(e.getMessage().replaceAll(".*stopped: (\\d+) .*", "$1")))
        .sum();
  }

  /** The operator's creates of VolumeMoves that made one. */
  private long moveCreates() {
    return operatorDecisions().stream()
        .filter(d -> d.code() == 201)
        .map(StrictApiServer.Decision::request)
        .filter(r -> r.resource().equals("volumemoves") && r.verb().equals("create"))
        .count();
  }
}
