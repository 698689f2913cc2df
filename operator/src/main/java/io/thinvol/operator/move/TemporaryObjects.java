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
    remove(move, false);
  }

  /**
   * What a move that did not move the claim made goes; the pre-copy stays when the source node is
   * lost: then it may be the only copy of the data left, as of the pre-copy.
   */
  static void removeAfterFailure(Move move) {
    remove(move, true);
  }

  private static void remove(Move move, boolean failed) {
    MoveNames names = move.names();
    MoveCluster cluster = move.cluster();
    cluster.deletePolicy(names);
    cluster.deleteClaim(names.namespace(), names.cut());
    if (failed && preCopyOfLostSource(move)) {
      move.warning(
          "PreCopyKept",
          "the source node "
              + move.status().getSourceNode()
              + " is lost: PersistentVolumeClaim "
              + names.baseClaim()
              + " on node "
              + move.status().getTargetNode()
              + " is kept. It holds the data of PersistentVolumeClaim "
              + names.claim()
              + " as of the pre-copy ("
              + move.status().getPreCopyCompletionTime()
              + "), not what was written since; clone it into a claim of your own, or delete it");
    } else {
      cluster.deleteClaim(names.namespace(), names.baseClaim());
    }
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
      removeAfterFailure(move);
    }
    String policy = move.status().getOriginalReclaimPolicy();
    Optional<PersistentVolume> old = move.cluster().volume(move.status().getSourceVolume());
    if (old.isPresent() && VolumeObjects.heldBy(old.get(), move.names()) && policy != null) {
      move.cluster()
          .patchVolume(old.get().getMetadata().getName(), VolumeObjects.releasePatch(policy));
    }
    end(move, failure.reason(), failure.getMessage(), failure.refusal());
  }

  private static boolean preCopyOfLostSource(Move move) {
    return move.status().getPreCopyCompletionTime() != null
        && move.status().getSourceNode() != null
        && move.services().nodes().health(move.status().getSourceNode()).lost();
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
