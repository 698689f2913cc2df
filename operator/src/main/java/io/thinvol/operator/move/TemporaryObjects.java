package io.thinvol.operator.move;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.thinvol.api.v1alpha1.MovePhase;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * What a move made only for its own use, removed when it ends: the admission policy, the pre-copy
 * (S1 and the claim restored from it), S2 and the claim entitled to it. Deleting what is gone
 * succeeds, so this may run any number of times.
 *
 * <p>The snapshots go as the snapshot controller (external-snapshotter) expects. A VolumeSnapshot
 * goes once no Pending claim is restored from it (the controller keeps it, with a Warning {@code
 * SnapshotDeletePending}, and tries again): at a move's end the copy's claim is gone already and
 * the pre-copy's is bound, which the controller does not mind; a move deleted during its pre-copy
 * waits for the pre-copy's claim to be gone ({@link #waitForFailedMovesClaims}). A content bound to
 * its VolumeSnapshot goes only through it: the controller marks it for the node's csi-snapshotter
 * and deletes it itself, and a delete of the operator's besides lets the csi-snapshotter remove it
 * before the controller's own delete, which then fails with a Warning {@code
 * SnapshotContentObjectDeleteError}. A content bound to none (S2 imported, its VolumeSnapshot never
 * made or not bound yet) is nobody's but the move's to delete.
 */
final class TemporaryObjects {

  static final Duration POLL = Duration.ofMillis(500);

  private TemporaryObjects() {}

  static void remove(Move move) {
    removeKeeping(move, KeptCopy.Kept.NOTHING);
  }

  /**
   * What a move that did not move the claim made goes; the pre-copy stays when the source node is
   * lost: then it may be the only copy of the data left, as of the pre-copy.
   */
  static void removeAfterFailure(Move move) {
    removeKeeping(move, preCopyOfLostSource(move));
  }

  /** What the move made goes, but the claim {@code kept} names, said in a Warning. */
  static void removeKeeping(Move move, KeptCopy.Kept kept) {
    MoveNames names = move.names();
    MoveCluster cluster = move.cluster();
    cluster.deletePolicy(names);
    deleteClaims(move, kept);
    KeptCopy.say(move, kept);
    if (move.services().settings().snapshotApi()) {
      Optional<GenericKubernetesResource> content = cluster.snapshotContent(names.cut());
      cluster.deleteSnapshot(names.namespace(), names.cut());
      if (content.isPresent() && !SnapshotObjects.bound(content.get())) {
        cluster.deleteSnapshotContent(names.cut());
      }
      cluster.deleteSnapshot(names.namespace(), names.preSnapshot());
    }
  }

  /**
   * Deletes the claims restored from the move's snapshots (the copy's and the pre-copy's) but the
   * one kept; true once they are gone.
   */
  private static boolean deleteClaims(Move move, KeptCopy.Kept kept) {
    MoveNames names = move.names();
    MoveCluster cluster = move.cluster();
    boolean gone = true;
    for (String claim : List.of(names.cut(), names.baseClaim())) {
      if (claim.equals(keptClaim(names, kept))) {
        continue;
      }
      cluster.deleteClaim(names.namespace(), claim);
      gone &= cluster.claim(names.namespace(), claim).isEmpty();
    }
    return gone;
  }

  private static String keptClaim(MoveNames names, KeptCopy.Kept kept) {
    return switch (kept) {
      case COPY -> names.cut();
      case PRE_COPY -> names.baseClaim();
      case NOTHING -> null;
    };
  }

  /**
   * Asks to look again while the claims restored from the snapshots are not gone yet; a failed
   * move's pre-copy of a lost source is not waited for ({@link #removeAfterFailure} keeps it).
   */
  static Duration waitForFailedMovesClaims(Move move, String doing) {
    if (deleteClaims(move, preCopyOfLostSource(move))) {
      return null;
    }
    move.message(
        doing
            + "; waiting for the claims restored from its snapshots to be gone before the"
            + " snapshots are deleted");
    move.save();
    return POLL;
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

  /** Before the cut-over's copy: the pre-copy of a lost source, which is not consumed yet. */
  private static KeptCopy.Kept preCopyOfLostSource(Move move) {
    return KeptCopy.applies(move) ? KeptCopy.Kept.PRE_COPY : KeptCopy.Kept.NOTHING;
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
