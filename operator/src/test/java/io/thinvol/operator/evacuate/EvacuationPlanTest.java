package io.thinvol.operator.evacuate;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeBuilder;
import io.thinvol.addons.ClusterFixtures;
import io.thinvol.api.BackendNames;
import io.thinvol.api.v1alpha1.MovePhase;
import io.thinvol.api.v1alpha1.VolumeMove;
import io.thinvol.api.v1alpha1.VolumeMoveStatus;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/** What an evacuation decides from the caches, case by case. */
class EvacuationPlanTest {

  private static final String NODE = "node-x";
  private static final String DRIVER = BackendNames.driver("local");
  private static final Function<ObjectReference, Optional<VolumeMove>> NO_OTHER_MOVES =
      claim -> Optional.empty();

  @Test
  void movesEveryBoundThinvolVolumeOfTheNodeAndNothingElse() {
    PersistentVolume released = volume("pv-released", DRIVER, NODE, "data-r");
    released.getStatus().setPhase("Released");
    PersistentVolume deleting = volume("pv-deleting", DRIVER, NODE, "data-d");
    deleting.getMetadata().setDeletionTimestamp("2026-11-26T16:00:00Z");
    PersistentVolume unbound =
        new PersistentVolumeBuilder(volume("pv-free", DRIVER, NODE, "x"))
            .editSpec()
            .withClaimRef(null)
            .endSpec()
            .editStatus()
            .withPhase("Available")
            .endStatus()
            .build();
    List<PersistentVolume> volumes =
        List.of(
            volume("pv-a", DRIVER, NODE, "data-a"),
            volume("pv-foreign", "other.csi.example.com", NODE, "data-f"),
            volume("pv-elsewhere", DRIVER, "node-y", "data-e"),
            volume("pv-base", DRIVER, NODE, "thinvol-move-0a1b2c3d-base"),
            released,
            deleting,
            unbound);

    EvacuationPlan plan = EvacuationPlan.of(NODE, volumes, List.of(), none(), NO_OTHER_MOVES);

    assertThat(plan.create()).hasSize(1);
    VolumeMove move = plan.create().get(0);
    assertThat(move.getMetadata().getName()).isEqualTo("evacuate-pv-a");
    assertThat(move.getMetadata().getNamespace()).isEqualTo("apps");
    assertThat(move.getMetadata().getLabels()).isEqualTo(Map.of(VolumeMove.EVACUATED_NODE, NODE));
    assertThat(move.getMetadata().getOwnerReferences()).isNullOrEmpty();
    assertThat(move.getSpec().getPersistentVolumeClaim()).isEqualTo("data-a");
    assertThat(move.getSpec().getTargetNode()).isNull();
    assertThat(plan.toMove()).isEqualTo(1);
    assertThat(plan.evacuated()).isFalse();
  }

  @Test
  void aVolumeWithItsMoveGetsNoOtherAndOneMovedByAnotherMoveWaitsForIt() {
    VolumeMove ours = move("evacuate-pv-a", NODE, null);
    VolumeMove someonesElse = move("evacuate-pv-b", null, null);
    VolumeMove anywhere = move("anywhere", null, MovePhase.Pending);
    List<PersistentVolume> volumes =
        List.of(
            volume("pv-a", DRIVER, NODE, "data-a"),
            volume("pv-b", DRIVER, NODE, "data-b"),
            volume("pv-c", DRIVER, NODE, "data-c"));

    EvacuationPlan plan =
        EvacuationPlan.of(
            NODE,
            volumes,
            List.of(ours),
            named(ours, someonesElse),
            claim -> claim.getName().equals("data-c") ? Optional.of(anywhere) : Optional.empty());

    assertThat(plan.create()).isEmpty();
    assertThat(plan.nameTaken()).containsExactly("apps/evacuate-pv-b");
    assertThat(plan.movedByOthers()).containsExactly(anywhere);
    assertThat(plan.toMove()).isEqualTo(1);
    assertThat(plan.evacuated()).isFalse();
  }

  @Test
  void evacuatedOnceEveryMoveSucceededAndAFailedOneHoldsItUp() {
    VolumeMove a = move("evacuate-pv-a", NODE, MovePhase.Succeeded);
    VolumeMove b = move("evacuate-pv-b", NODE, MovePhase.Failed);
    // the cache may still show a moved volume bound: its move says it is done
    List<PersistentVolume> volumes =
        List.of(volume("pv-a", DRIVER, NODE, "data-a"), volume("pv-b", DRIVER, NODE, "data-b"));

    EvacuationPlan stalled =
        EvacuationPlan.of(NODE, volumes, List.of(a, b), named(a, b), NO_OTHER_MOVES);
    assertThat(stalled.evacuated()).isFalse();
    assertThat(stalled.failed()).containsExactly(b);
    assertThat(stalled.toMove()).isZero();

    VolumeMove succeeded = move("evacuate-pv-b", NODE, MovePhase.Succeeded);
    EvacuationPlan done =
        EvacuationPlan.of(
            NODE, volumes, List.of(a, succeeded), named(a, succeeded), NO_OTHER_MOVES);
    assertThat(done.evacuated()).isTrue();
    assertThat(done.failed()).isEmpty();

    assertThat(EvacuationPlan.of(NODE, List.of(), List.of(), none(), NO_OTHER_MOVES).evacuated())
        .as("a node without thinvol volumes")
        .isTrue();
  }

  @Test
  void stoppingTakesBackOnlyMovesThatHaveNotBegunToCutOver() {
    Map<String, VolumeMove> moves = new HashMap<>();
    moves.put("none", move("evacuate-none", NODE, null));
    for (MovePhase phase : MovePhase.values()) {
      moves.put(phase.name(), move("evacuate-" + phase.name().toLowerCase(), NODE, phase));
    }
    VolumeMove deleting = move("evacuate-deleting", NODE, MovePhase.Pending);
    deleting.getMetadata().setDeletionTimestamp("2026-11-26T16:00:00Z");
    List<VolumeMove> ours = new java.util.ArrayList<>(moves.values());
    ours.add(deleting);

    assertThat(EvacuationPlan.withdraw(ours))
        .extracting(m -> m.getMetadata().getName())
        .containsExactlyInAnyOrder(
            "evacuate-none",
            "evacuate-pending",
            "evacuate-precopying",
            "evacuate-waitingforcutover");
  }

  @Test
  void onlyTrueAndFalseAreUnderstood() {
    assertThat(request(null)).isEqualTo(EvacuateRequest.Kind.STOP);
    assertThat(request("false")).isEqualTo(EvacuateRequest.Kind.STOP);
    assertThat(request("true")).isEqualTo(EvacuateRequest.Kind.EVACUATE);
    for (String value : Arrays.asList("True", "yes", "", "1")) {
      assertThat(request(value)).as(value).isEqualTo(EvacuateRequest.Kind.NOT_UNDERSTOOD);
    }
  }

  @Test
  void aNodeNameTooLongForALabelIsShortenedAndKeptWholeInAnAnnotation() {
    String node = "worker-" + "a".repeat(60) + ".example.internal";
    VolumeMove move =
        EvacuationMoves.of(
            volume("pv-a", DRIVER, node, "data-a"),
            NodeVolumes.claim(volume("pv-a", DRIVER, node, "data-a")).orElseThrow(),
            node);

    String label = move.getMetadata().getLabels().get(VolumeMove.EVACUATED_NODE);
    assertThat(label).hasSizeLessThanOrEqualTo(63).matches("[a-z0-9]([-a-z0-9.]*[a-z0-9])?");
    assertThat(label).isEqualTo(EvacuationMoves.labelValue(node)).startsWith("worker-aaa");
    assertThat(EvacuationMoves.labelValue(node + "b")).isNotEqualTo(label);
    assertThat(EvacuationMoves.nodeOf(move)).contains(node);
    assertThat(EvacuationMoves.name(volume("p".repeat(253), DRIVER, node, "c")))
        .hasSize(253)
        .startsWith("evacuate-ppp");
  }

  @Test
  void nodeEventsAreNamedAfterWhatTheySay() {
    var node = new NodeBuilder().withNewMetadata().withName(NODE).withUid("u1").endMetadata();
    String name = NodeEvents.name(node.build(), "Evacuated", "k");
    assertThat(name).startsWith(NODE + ".").hasSize(NODE.length() + 17);
    assertThat(NodeEvents.name(node.build(), "Evacuated", "k")).isEqualTo(name);
    assertThat(NodeEvents.name(node.build(), "Evacuated", "other")).isNotEqualTo(name);
    assertThat(
            NodeEvents.name(
                node.editMetadata().withUid("u2").endMetadata().build(), "Evacuated", "k"))
        .as("a node of the same name made anew")
        .isNotEqualTo(name);
  }

  private static EvacuateRequest.Kind request(String value) {
    var node = new NodeBuilder().withNewMetadata().withName(NODE).endMetadata().build();
    if (value != null) {
      node.getMetadata().setAnnotations(Map.of(VolumeMove.EVACUATE, value));
    }
    return EvacuateRequest.of(node).kind();
  }

  private static PersistentVolume volume(String name, String driver, String node, String claim) {
    return ClusterFixtures.volume(name, driver, "vol-" + name, node, "apps", claim);
  }

  /** A move in "apps"; {@code node} null for one the evacuation did not make. */
  private static VolumeMove move(String name, String node, MovePhase phase) {
    VolumeMove move =
        EvacuationMoves.of(
            volume(name.replaceFirst("^evacuate-", ""), DRIVER, NODE, "data"),
            NodeVolumes.claim(volume("pv", DRIVER, NODE, "data")).orElseThrow(),
            node == null ? NODE : node);
    if (node == null) {
      move.getMetadata().setLabels(null);
      move.getMetadata().setAnnotations(null);
    }
    move.getMetadata().setUid("uid-" + name);
    if (phase != null) {
      VolumeMoveStatus status = new VolumeMoveStatus();
      status.setPhase(phase);
      move.setStatus(status);
    }
    return move;
  }

  private static java.util.function.BiFunction<String, String, Optional<VolumeMove>> named(
      VolumeMove... moves) {
    return (namespace, name) ->
        Arrays.stream(moves)
            .filter(m -> m.getMetadata().getNamespace().equals(namespace))
            .filter(m -> m.getMetadata().getName().equals(name))
            .findFirst();
  }

  private static java.util.function.BiFunction<String, String, Optional<VolumeMove>> none() {
    return (namespace, name) -> Optional.empty();
  }
}
