package io.thinvol.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.thinvol.addons.call.MoveCopier;
import io.thinvol.addons.call.MoveCopier.CopiedIn;
import io.thinvol.api.v1alpha1.MovePhase;
import io.thinvol.api.v1alpha1.VolumeMove;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A move whose source or target node leaves Ready, or is lost: the condition NodeNotReady and a
 * Warning name the node, since when and what happens when; the move goes on when the node comes
 * back before the deadline, and fails (before the claim was deleted) or rolls back (after) once it
 * passed, or at once when the node is lost. The deadlines are the backend's defaults, 5 and 10
 * minutes; the operator's clock is moved past them.
 */
class VolumeMoveNodeNotReadyTest extends MoveClusterTest {

  private final ShiftedClock clock = new ShiftedClock();
  private PlayedNodeLifecycle nodes;

  @Override
  Clock clock() {
    return clock;
  }

  @BeforeEach
  void nodesReady() {
    nodes = new PlayedNodeLifecycle(client);
    for (String node : new String[] {"node-a", "node-b", "node-c"}) {
      nodes.ready(node);
    }
  }

  @Test
  void aTargetNotReadyDuringThePreCopyIsSaidAndFailsTheMoveAtItsDeadline() {
    PersistentVolumeClaim before = claim();
    storage.stuckSnapshots.add("-pre");
    VolumeMove created =
        createMove("to-b", "  persistentVolumeClaim: data\n  targetNode: node-b\n");
    awaitPhase("to-b", MovePhase.PreCopying);
    nodes.unreachable("node-b");
    storage.stuckSnapshots.remove("-pre"); // S1 ready; node-b's provisioner does not run

    Condition said = awaitNodeCondition("to-b", "TargetNodeNotReady");
    assertThat(said.getMessage())
        .startsWith("the target node node-b is NotReady since ")
        .contains("(NodeStatusUnknown: Kubelet stopped posting node status.)")
        .contains(": the move waits, and goes on by itself if the node is Ready by ")
        .endsWith(
            "after that it fails and removes what it made; PersistentVolumeClaim data was not"
                + " changed");
    assertThat(move("to-b").getStatus().getMessage()).isEqualTo(said.getMessage());
    assertThat(move("to-b").getStatus().getPhase()).isEqualTo(MovePhase.PreCopying);
    await("the Warning", () -> moveEvents("to-b").contains("NodeNotReady"));

    clock.advance(Duration.ofMinutes(4));
    // The node's news wakes the move: looked at again within the deadline, it still waits.
    nodes.unreachable("node-b", "the node lost its network");
    await(
        "the move looked again",
        () -> awaitNodeCondition("to-b", "TargetNodeNotReady").getMessage().contains("network"));
    assertThat(move("to-b").getStatus().getPhase()).isEqualTo(MovePhase.PreCopying);

    clock.advance(Duration.ofMinutes(1).plusSeconds(1));
    VolumeMove failed = awaitPhase("to-b", MovePhase.Failed);
    assertThat(VolumeMoveTest.condition(failed, "Failed").getReason())
        .isEqualTo("TargetNodeNotReady");
    assertThat(failed.getStatus().getMessage())
        .contains("the target node node-b is NotReady since ")
        .contains("for longer than 5 minutes: the move removed what it made");
    await("the temporaries gone", () -> temporaries(created) == 0);
    assertThat(claim().getMetadata().getUid()).isEqualTo(before.getMetadata().getUid());
    assertThat(claim().getSpec().getVolumeName()).isEqualTo(OLD_PV);
    awaitMoveEvents("to-b", "Accepted", "PreCopyStarted", "NodeNotReady", "Failed");
  }

  @Test
  void aSourceBackBeforeTheDeadlineLetsThePreCopyGoOn() {
    storage.stuckSnapshots.add("-pre"); // the source's snapshotter does not run either
    createMove("to-b", "  persistentVolumeClaim: data\n  targetNode: node-b\n");
    awaitPhase("to-b", MovePhase.PreCopying);
    nodes.unreachable("node-a");
    assertThat(awaitNodeCondition("to-b", "SourceNodeNotReady").getMessage())
        .startsWith("the source node node-a is NotReady since ");

    nodes.ready("node-a");
    storage.stuckSnapshots.remove("-pre");
    awaitPhase("to-b", MovePhase.WaitingForCutOver);
    Condition cleared = VolumeMoveTest.condition(move("to-b"), "NodeNotReady");
    assertThat(cleared.getStatus()).isEqualTo("False");
    assertThat(cleared.getReason()).isEqualTo("NodesReady");
    stopApp();
    awaitPhase("to-b", MovePhase.Succeeded);
    awaitMoveEvents("to-b", "NodeNotReady", "NodeReady", "PreCopied", "Succeeded");
  }

  @Test
  void aDeletedTargetFailsThePreCopyAtOnce() {
    storage.stuckSnapshots.add("-pre");
    VolumeMove created =
        createMove("to-b", "  persistentVolumeClaim: data\n  targetNode: node-b\n");
    awaitPhase("to-b", MovePhase.PreCopying);
    nodes.delete("node-b");

    VolumeMove failed = awaitPhase("to-b", MovePhase.Failed);
    assertThat(VolumeMoveTest.condition(failed, "Failed").getReason()).isEqualTo("TargetNodeLost");
    assertThat(failed.getStatus().getMessage())
        .isEqualTo(
            "the target node node-b is lost (its Node was deleted): the move removed what it"
                + " made; PersistentVolumeClaim data was not changed");
    assertThat(VolumeMoveTest.condition(failed, "NodeNotReady").getReason())
        .isEqualTo("TargetNodeLost");
    await("the temporaries gone", () -> temporaries(created) == 0);
    assertThat(claim().getSpec().getVolumeName()).isEqualTo(OLD_PV);
  }

  @Test
  void aTargetNotReadyDuringTheCutOverRollsItBackAtTheCutOversDeadline() {
    CopyInFlight inFlight = cutOverCopyingToB();
    CompletableFuture<CopiedIn> copy = inFlight.copy();
    VolumeMove created = inFlight.move();
    nodes.unreachable("node-b");

    Condition said = awaitNodeCondition("to-b", "TargetNodeNotReady");
    assertThat(said.getMessage())
        .startsWith("the target node node-b is NotReady since ")
        .contains(": the cut-over goes on when the node is Ready; if it has not finished by ")
        .endsWith(
            "it rolls back: PersistentVolumeClaim data is bound to its old volume pv-data on node"
                + " node-a again");
    assertThat(move("to-b").getStatus().getMessage()).isEqualTo(said.getMessage());
    assertThat(claim()).as("the claim is away during the cut-over").isNull();

    clock.advance(Duration.ofMinutes(10).plusSeconds(1));
    VolumeMove failed = awaitPhase("to-b", MovePhase.Failed);
    assertThat(copy.isCancelled()).as("the copy in flight given up").isTrue();
    assertThat(VolumeMoveTest.condition(failed, "CutOver").getReason()).isEqualTo("RolledBack");
    assertThat(failed.getStatus().getMessage())
        .contains("the target node node-b is NotReady since ")
        .contains("and the cut-over began more than 10 minutes ago")
        .endsWith("the claim is bound to its old volume again");
    assertThat(claim().getSpec().getVolumeName()).isEqualTo(OLD_PV);
    assertThat(claim().getStatus().getPhase()).isEqualTo("Bound");
    assertThat(volume(OLD_PV).getSpec().getPersistentVolumeReclaimPolicy()).isEqualTo("Delete");
    await("the temporaries gone", () -> temporaries(created) == 0);
    awaitMoveEvents("to-b", "CutOverStarted", "NodeNotReady", "RollingBack", "RolledBack");
  }

  @Test
  void aRollbackGivesUpTheCopyInFlightToADriverPodNoLongerReady() {
    CopyInFlight inFlight = cutOverCopyingToB();
    CompletableFuture<CopiedIn> copy = inFlight.copy();
    VolumeMove created = inFlight.move();
    // The target's driver hangs: the kubelet marks its pod not Ready, the node stays Ready, and
    // the copy's connection is never reset.
    nodes.podsReady("node-b", "False");

    clock.advance(Duration.ofMinutes(10).plusSeconds(1));
    VolumeMove failed = awaitPhase("to-b", MovePhase.Failed);
    assertThat(copy.isCancelled()).as("the copy in flight given up").isTrue();
    assertThat(VolumeMoveTest.condition(failed, "CutOver").getReason()).isEqualTo("RolledBack");
    assertThat(failed.getStatus().getMessage())
        .contains("no ready driver pod on node node-b")
        .endsWith("the claim is bound to its old volume again");
    assertThat(claim().getSpec().getVolumeName()).isEqualTo(OLD_PV);
    await("the temporaries gone", () -> temporaries(created) == 0);
  }

  @Test
  void aTargetBackDuringTheCutOverLetsItFinish() {
    CopyInFlight inFlight = cutOverCopyingToB();
    CompletableFuture<CopiedIn> copy = inFlight.copy();
    VolumeMove created = inFlight.move();
    nodes.unreachable("node-b");
    awaitNodeCondition("to-b", "TargetNodeNotReady");

    nodes.ready("node-b");
    await(
        "the condition cleared",
        () -> "False".equals(VolumeMoveTest.condition(move("to-b"), "NodeNotReady").getStatus()));
    copy.complete(
        new CopiedIn(
            "copied-thinvol-move-" + created.getMetadata().getUid(),
            FakeMoveCopier.SIZE,
            "snap-base",
            FakeMoveCopier.DELTA));
    VolumeMove done = awaitPhase("to-b", MovePhase.Succeeded);
    assertThat(claim().getSpec().getVolumeName()).isEqualTo(done.getStatus().getTargetVolume());
  }

  @Test
  void aSourceLostAfterTheClaimWasDeletedGivesTheClaimItsOldVolumeBack() {
    CompletableFuture<MoveCopier.Taken> taking = new CompletableFuture<>();
    copier.snapshot = request -> taking;
    stopApp();
    VolumeMove created =
        createMove("to-b", "  persistentVolumeClaim: data\n  targetNode: node-b\n");
    await("S2 asked", () -> copier.snapshots.size() == 1);
    assertThat(claim()).isNull();
    nodes.delete("node-a");

    VolumeMove failed = awaitPhase("to-b", MovePhase.Failed);
    assertThat(taking.isCancelled()).as("S2 given up").isTrue();
    assertThat(failed.getStatus().getMessage())
        .startsWith("SourceNodeLost: the source node node-a is lost (its Node was deleted)")
        .endsWith("the claim is bound to its old volume again");
    PersistentVolumeClaim back = claim();
    assertThat(back.getSpec().getVolumeName()).isEqualTo(OLD_PV);
    assertThat(back.getStatus().getPhase()).isEqualTo("Bound");
    PersistentVolume old = volume(OLD_PV);
    assertThat(old.getSpec().getPersistentVolumeReclaimPolicy()).isEqualTo("Delete");
    assertThat(old.getMetadata().getAnnotations())
        .doesNotContainKeys("thinvol.io/volume-move", "thinvol.io/volume-move-claim");
    assertThat(storage.deletedVolumes).doesNotContain(OLD_PV);
    await("the temporaries gone but the pre-copy", () -> temporaries(created) == 1);
    String base = "thinvol-move-" + created.getMetadata().getUid().replace("-", "").substring(0, 8);
    assertThat(client.persistentVolumeClaims().inNamespace(APPS).withName(base + "-base").get())
        .as("the pre-copy, perhaps the only copy left")
        .isNotNull();
    awaitMoveEvents("to-b", "PreCopyKept");
  }

  @Test
  void theOldVolumeIsKeptWhileTheTargetIsNotReadyAfterTheRebinding() {
    cutOverUntilMountedOnTarget();
    nodes.unreachable("node-b");
    runApp("node-b");

    Condition said = awaitNodeCondition("to-b", "TargetNodeNotReady");
    assertThat(said.getMessage())
        .startsWith("PersistentVolumeClaim data is bound to its new volume thinvol-move-")
        .contains("on node node-b, which is NotReady since ")
        .endsWith("the old volume pv-data on node node-a is kept until it is Ready");
    assertThat(volume(OLD_PV).getSpec().getPersistentVolumeReclaimPolicy()).isEqualTo("Retain");
    assertThat(move("to-b").getStatus().getPhase()).isEqualTo(MovePhase.CuttingOver);

    nodes.ready("node-b");
    awaitPhase("to-b", MovePhase.Succeeded);
    await("the old volume deleted", () -> volume(OLD_PV) == null);
  }

  @Test
  void aTargetLostAfterTheRebindingEndsTheMoveKeepingTheOldVolume() {
    cutOverUntilMountedOnTarget();
    runApp("node-b");
    nodes.delete("node-b");

    VolumeMove failed = awaitPhase("to-b", MovePhase.Failed);
    assertThat(VolumeMoveTest.condition(failed, "Failed").getReason()).isEqualTo("TargetNodeLost");
    assertThat(failed.getStatus().getMessage())
        .contains("on node node-b, which is lost (its Node was deleted)")
        .contains("the old volume pv-data on node node-a is kept (reclaim policy Retain)");
    awaitMoveEvents("to-b", "SourceKept", "Failed");
    PersistentVolume old = volume(OLD_PV);
    assertThat(old.getSpec().getPersistentVolumeReclaimPolicy()).isEqualTo("Retain");
    assertThat(old.getMetadata().getAnnotations())
        .doesNotContainKeys("thinvol.io/volume-move", "thinvol.io/volume-move-claim");
    assertThat(storage.deletedVolumes).doesNotContain(OLD_PV);
  }

  /**
   * A move with {@code keepSourceUntil: Mounted} cut over: the claim is bound to its new volume on
   * node b, the old one kept until a pod there runs with it.
   */
  /** A move to node-b whose cut-over's copy was asked and has not answered. */
  private record CopyInFlight(VolumeMove move, CompletableFuture<CopiedIn> copy) {}

  private CopyInFlight cutOverCopyingToB() {
    CompletableFuture<CopiedIn> copy = new CompletableFuture<>();
    copier.copyIn = request -> copy;
    stopApp();
    VolumeMove created =
        createMove("to-b", "  persistentVolumeClaim: data\n  targetNode: node-b\n");
    await("the copy asked", () -> copier.copies.size() == 1);
    return new CopyInFlight(created, copy);
  }

  private void cutOverUntilMountedOnTarget() {
    stopApp();
    createMove(
        "to-b",
        "  persistentVolumeClaim: data\n  targetNode: node-b\n  keepSourceUntil: Mounted\n");
    await(
        "the claim bound to its new volume",
        () ->
            move("to-b").getStatus() != null
                && String.valueOf(move("to-b").getStatus().getMessage())
                    .contains("keeping the old one until a pod on node node-b runs with it"));
  }

  private Condition awaitNodeCondition(String name, String reason) {
    return await(
        "condition NodeNotReady " + reason,
        () -> {
          VolumeMove now = move(name);
          if (now == null || now.getStatus() == null || now.getStatus().getConditions() == null) {
            return null;
          }
          return now.getStatus().getConditions().stream()
              .filter(c -> c.getType().equals("NodeNotReady"))
              .filter(c -> c.getStatus().equals("True") && c.getReason().equals(reason))
              .findFirst()
              .orElse(null);
        });
  }
}
