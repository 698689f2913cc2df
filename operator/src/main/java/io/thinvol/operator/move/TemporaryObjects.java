package io.thinvol.operator.move;

import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.thinvol.api.v1alpha1.MovePhase;
import java.util.Optional;

/**
 * What a move made only for its own use, removed when it ends: the admission policy, the pre-copy
 * (S1 and the claim restored from it), S2 and the claim entitled to it. Deleting what is gone
 * succeeds, so this may run any number of times.
 */
final class TemporaryObjects {

  private TemporaryObjects() {}

  static void remove(Move move) {
    MoveNames names = move.names();
    MoveCluster cluster = move.cluster();
    cluster.deletePolicy(names);
    cluster.deleteClaim(names.namespace(), names.cut());
    cluster.deleteClaim(names.namespace(), names.baseClaim());
    if (move.services().settings().snapshotApi()) {
      cluster.deleteSnapshot(names.namespace(), names.cut());
      cluster.deleteSnapshotContent(names.cut());
      cluster.deleteSnapshot(names.namespace(), names.preSnapshot());
    }
  }

  /**
   * A move that fails before the claim was deleted: everything it made goes, and the old volume, if
   * the move held it, gets its policy back. The application was never touched.
   */
  static void abandon(Move move, MoveFailure failure) {
    if (!failure.refusal()) {
      remove(move);
    }
    String policy = move.status().getOriginalReclaimPolicy();
    Optional<PersistentVolume> old = move.cluster().volume(move.status().getSourceVolume());
    if (old.isPresent() && VolumeObjects.heldBy(old.get(), move.names()) && policy != null) {
      move.cluster()
          .patchVolume(old.get().getMetadata().getName(), VolumeObjects.releasePatch(policy));
    }
    end(move, failure.reason(), failure.getMessage(), failure.refusal());
  }

  /** Records the end of a move that did not move anything. */
  static void end(Move move, String reason, String message, boolean refusal) {
    move.status().setCompletionTime(move.now().toString());
    move.condition(MoveStatusModel.FAILED, true, reason, message);
    move.phase(MovePhase.Failed, message);
    if (refusal) {
      move.warning("Refused", message);
    } else {
      move.warning("Failed", message);
    }
    move.save();
  }
}
