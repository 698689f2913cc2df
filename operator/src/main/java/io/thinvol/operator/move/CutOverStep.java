package io.thinvol.operator.move;

import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import java.time.Duration;
import java.util.Optional;

/**
 * CuttingOver: goes on from where the claim stands ({@link ClaimState}), so that an operator that
 * restarts anywhere in the cut-over finishes it. A failure once the claim was deleted rolls back; a
 * move deleted meanwhile finishes forward if the new claim exists, else rolls back.
 */
final class CutOverStep {

  private CutOverStep() {}

  /**
   * @param leaving the move is being deleted: nothing new is begun forward
   * @return when to look again, or null when the move ended or went back to WaitingForCutOver
   */
  static Duration run(Move move, boolean leaving) throws MoveFailure {
    MoveNames names = move.names();
    PersistentVolume old = SourceFacts.oldVolume(move);
    Optional<PersistentVolumeClaim> claim = move.cluster().claim(names.namespace(), names.claim());
    ClaimState state = ClaimState.of(claim, names, move.name());
    if (Rollback.begun(move)) {
      return Rollback.run(move, claim, old);
    }
    switch (state) {
      case ORIGINAL:
        if (leaving) {
          throw MoveFailure.failed("Deleted", "the VolumeMove was deleted before the cut-over");
        }
        if (NodeWait.cutOverNotBegun(move)) {
          return null; // WaitingForCutOver again, which waits for the node
        }
        return ClaimRelease.run(move, claim.get(), old);
      case DELETING:
        if (NodeWait.duringCutOver(move, old)) {
          return Rollback.run(move, claim, old);
        }
        FencedPods.release(move);
        move.message(
            "waiting for PersistentVolumeClaim "
                + names.claim()
                + " to be gone (its volume "
                + old.getMetadata().getName()
                + " is held at Retain)");
        move.save();
        return ClaimRelease.POLL;
      case FORWARD:
        return FinishStep.run(move, claim.get(), old);
      default:
        if (leaving) {
          Rollback.begin(move, "Deleted", "the VolumeMove was deleted during the cut-over");
          return Rollback.run(move, claim, old);
        }
        if (NodeWait.duringCutOver(move, old)) {
          return Rollback.run(move, claim, old);
        }
        return CutOverCopy.run(move, old);
    }
  }
}
