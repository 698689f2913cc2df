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
    List<String> users = move.cluster().podsUsing(names.namespace(), names.claim());
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
    move.phase(
        MovePhase.CuttingOver,
        "copying the blocks changed since the pre-copy and rebinding the claim");
    move.condition(
        MoveStatusModel.CUT_OVER, false, "InProgress", "the claim is unused; cutting over");
    move.normal(
        "CutOverStarted",
        "PersistentVolumeClaim "
            + move.names().claim()
            + " is unused: copying the changed blocks to node "
            + move.status().getTargetNode()
            + " and rebinding the claim");
    move.save();
  }
}
