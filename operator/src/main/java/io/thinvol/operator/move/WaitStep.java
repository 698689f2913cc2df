package io.thinvol.operator.move;

import io.thinvol.api.v1alpha1.MovePhase;
import java.time.Duration;
import java.util.List;

/**
 * WaitingForCutOver: the cut-over begins once no pod that a node runs uses the claim (a drain, a
 * scale-down, a deleted pod). The namespace's pods are looked at every few seconds rather than
 * every pod of the cluster watched.
 */
final class WaitStep {

  static final Duration POLL = Duration.ofSeconds(5);

  private WaitStep() {}

  /**
   * @return when to look again, or null when the cut-over began
   */
  static Duration run(Move move) throws MoveFailure {
    MoveNames names = move.names();
    List<String> users = ReplicaMove.users(move);
    if (!users.isEmpty()) {
      move.message(
          "waiting for PersistentVolumeClaim "
              + names.claim()
              + " to be unused: pod"
              + (users.size() == 1 ? " " : "s ")
              + String.join(", ", users)
              + (users.size() == 1 ? " uses" : " use")
              + " it (stop or drain them to cut over)");
      move.save();
      return POLL;
    }
    if (ReplicaMove.of(move)) {
      start(move);
      return null;
    }
    String source = move.status().getSourceNode();
    int limit = SourceFacts.slots(move, SourceFacts.oldVolume(move));
    List<String> holders =
        move.services().slots().take(move.resource(), source, limit, () -> start(move));
    if (holders.isEmpty()) {
      return null;
    }
    move.message(
        "the claim is unused; waiting for a copy slot on node "
            + source
            + " (held by "
            + String.join(", ", holders)
            + ")");
    move.save();
    return PendingStep.SLOT_RECHECK;
  }

  private static void start(Move move) {
    move.status().setCutOverStartTime(move.now().toString());
    if (ReplicaMove.of(move)) {
      move.status()
          .setReplicaCutOver(
              ReplicaMove.sourceFenced(move).isPresent()
                  ? ReplicaMove.PROMOTED
                  : ReplicaMove.FINAL_DELTA);
    }
    String doing =
        ReplicaMove.promoted(move)
            ? "taking the replica on node "
                + move.status().getTargetNode()
                + " as it is (node "
                + move.status().getSourceNode()
                + " is dead and fenced) and rebinding the claim"
            : "copying the changed blocks to node "
                + move.status().getTargetNode()
                + " and rebinding the claim";
    move.phase(MovePhase.CuttingOver, doing);
    move.condition(
        MoveStatusModel.CUT_OVER, false, "InProgress", "the claim is unused; cutting over");
    move.normal(
        "CutOverStarted", "PersistentVolumeClaim " + move.names().claim() + " is unused: " + doing);
    move.save();
  }
}
