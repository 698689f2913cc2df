package io.thinvol.operator.move;

import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import java.util.Map;
import java.util.Optional;

/**
 * Where the moving claim stands during a cut-over, read from the cluster: what a restarted operator
 * goes on from.
 */
enum ClaimState {
  /** The application's claim, bound to the old volume: nothing was changed for it yet. */
  ORIGINAL,
  /** Deleted by the cut-over, still held by its protection until no pod uses it. */
  DELETING,
  /** Gone: neither the old claim nor a new one exists. */
  ABSENT,
  /** Re-created by the move for the new volume. */
  FORWARD,
  /** Re-created by the move's rollback for the old volume. */
  BACK;

  static ClaimState of(Optional<PersistentVolumeClaim> found, MoveNames names, String moveName) {
    if (found.isEmpty()) {
      return ABSENT;
    }
    PersistentVolumeClaim claim = found.get();
    Map<String, String> annotations = claim.getMetadata().getAnnotations();
    boolean ours = annotations != null && moveName.equals(annotations.get(MoveNames.MOVED_BY));
    if (ours) {
      String volume = claim.getSpec() == null ? null : claim.getSpec().getVolumeName();
      return names.newVolume().equals(volume) ? FORWARD : BACK;
    }
    return claim.getMetadata().getDeletionTimestamp() == null ? ORIGINAL : DELETING;
  }

  /** Whether the claim was deleted: from here a failure rolls back instead of cleaning up. */
  boolean swapped() {
    return this != ORIGINAL;
  }

  static boolean bound(PersistentVolumeClaim claim, String volume) {
    return claim.getStatus() != null
        && "Bound".equals(claim.getStatus().getPhase())
        && volume.equals(claim.getSpec().getVolumeName());
  }
}
