package io.thinvol.operator.move;

import io.thinvol.api.v1alpha1.MovePhase;
import java.time.Duration;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Takes a move through its phases as far as it can go now, and decides what a failure means: before
 * the claim was deleted everything the move made goes and the move fails; after, it rolls back.
 */
final class MoveDriver {

  private static final Logger log = LoggerFactory.getLogger(MoveDriver.class);

  /** Phases gone through in one reconcile at most (each a few requests). */
  private static final int STEPS = 8;

  private static final Duration RETRY = Duration.ofSeconds(10);

  private MoveDriver() {}

  /**
   * @param leaving the move is being deleted
   * @return when to look again; empty once the move ended
   */
  static Optional<Duration> advance(Move move, boolean leaving) {
    for (int step = 0; step < STEPS; step++) {
      MovePhase phase = move.phase();
      if (phase == MovePhase.Succeeded || phase == MovePhase.Failed) {
        return Optional.empty();
      }
      Duration wait;
      move.releaseMessage();
      try {
        wait = leaving && phase != MovePhase.CuttingOver ? leave(move) : run(move, phase, leaving);
      } catch (MoveFailure failure) {
        wait = fail(move, failure);
      }
      if (wait != null) {
        return Optional.of(wait);
      }
    }
    return Optional.of(Duration.ZERO);
  }

  private static Duration run(Move move, MovePhase phase, boolean leaving) throws MoveFailure {
    if (phase != MovePhase.CuttingOver && move.status().getSourceNode() != null) {
      Duration waiting = NodeWait.beforeClaimDeleted(move);
      if (waiting != null) {
        return waiting;
      }
    }
    return switch (phase) {
      case Pending -> PendingStep.run(move);
      case PreCopying -> PreCopyStep.run(move);
      case WaitingForCutOver -> WaitStep.run(move);
      case CuttingOver -> CutOverStep.run(move, leaving);
      default -> null;
    };
  }

  /** A move deleted before its cut-over: what it made goes. */
  private static Duration leave(Move move) {
    Duration claimsLeft =
        TemporaryObjects.waitForFailedMovesClaims(move, "the VolumeMove is being deleted");
    if (claimsLeft != null) {
      return claimsLeft;
    }
    TemporaryObjects.removeAfterFailure(move);
    TemporaryObjects.end(
        move, "Deleted", "the VolumeMove was deleted; the claim was not changed", false);
    return null;
  }

  private static Duration fail(Move move, MoveFailure failure) {
    log.warn("{}: {}", failure.reason(), failure.getMessage());
    move.releaseMessage();
    ClaimState state =
        move.phase() == MovePhase.CuttingOver
            ? ClaimState.of(
                move.cluster().claim(move.names().namespace(), move.names().claim()),
                move.names(),
                move.name())
            : ClaimState.ORIGINAL;
    if (state == ClaimState.FORWARD) {
      // The claim is on its new volume: what is left is cleaning up, tried again.
      move.message(failure.getMessage() + "; trying again");
      move.save();
      return RETRY;
    }
    boolean held =
        move.cluster()
            .volume(move.status().getSourceVolume())
            .filter(volume -> VolumeObjects.heldBy(volume, move.names()))
            .isPresent();
    if (!state.swapped() || !held) {
      // Not deleted by this move (a claim someone else deleted is not the move's to restore).
      TemporaryObjects.abandon(move, failure);
      return null;
    }
    if (!Rollback.begun(move)) {
      Rollback.begin(move, failure.reason(), failure.getMessage());
    }
    return Rollback.POLL;
  }
}
