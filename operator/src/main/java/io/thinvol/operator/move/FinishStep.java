package io.thinvol.operator.move;

import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.thinvol.api.v1alpha1.KeepSourceUntil;
import io.thinvol.api.v1alpha1.MovePhase;
import io.thinvol.api.v1alpha1.VolumeMoveStatus;
import java.time.Duration;
import java.time.Instant;

/**
 * The cut-over once the claim is re-created for the new volume: bound, the admission policy goes;
 * then (with {@code keepSourceUntil: Mounted} once a pod on the target runs with it) the
 * temporaries go and the old volume gets its reclaim policy back, which deletes it where that is
 * Delete.
 */
final class FinishStep {

  static final Duration POLL = Duration.ofMillis(500);

  private FinishStep() {}

  /**
   * @return when to look again, or null when the move succeeded
   */
  static Duration run(Move move, PersistentVolumeClaim claim, PersistentVolume old) {
    MoveNames names = move.names();
    VolumeMoveStatus status = move.status();
    if (!ClaimState.bound(claim, names.newVolume())) {
      move.message(
          "waiting for PersistentVolumeClaim "
              + names.claim()
              + " to be bound to PersistentVolume "
              + names.newVolume());
      move.save();
      return POLL;
    }
    if (status.getCutOverDuration() == null) {
      Duration took = Duration.between(Instant.parse(status.getCutOverStartTime()), move.now());
      status.setCutOverDuration(MoveStatusModel.seconds(took));
      String message =
          "PersistentVolumeClaim "
              + names.claim()
              + " is bound to PersistentVolume "
              + names.newVolume()
              + " on node "
              + status.getTargetNode()
              + " after a cut-over of "
              + status.getCutOverDuration();
      move.condition(MoveStatusModel.CUT_OVER, true, "ClaimRebound", message);
      move.normal("ClaimRebound", message);
      move.message(message);
      move.save();
    }
    move.cluster().deletePolicy(names);
    if (move.resource().getSpec().getKeepSourceUntil() == KeepSourceUntil.Mounted
        && move.resource().getMetadata().getDeletionTimestamp() == null
        && !move.cluster().runningOn(names.namespace(), names.claim(), status.getTargetNode())) {
      move.message(
          "the claim is bound to its new volume; keeping the old one until a pod on node "
              + status.getTargetNode()
              + " runs with it (keepSourceUntil: Mounted)");
      move.save();
      return WaitStep.POLL;
    }
    if (ReplicaMove.promoted(move)) {
      Duration promoting = ReplicaPromotion.promote(move, old);
      if (promoting != null) {
        return promoting;
      }
    }
    NodeWait.Release release = NodeWait.beforeReleasingSource(move, old);
    if (release != NodeWait.Release.GO) {
      return release == NodeWait.Release.HOLD ? NodeWait.POLL : null;
    }
    TemporaryObjects.remove(move);
    String policy = status.getOriginalReclaimPolicy();
    if (ReplicaMove.promoted(move)) {
      // the stale copy: it may hold writes the failover lost; the replication decides its fate
      move.cluster()
          .patchVolume(
              old.getMetadata().getName(),
              ReplicaPromotion.stalePatch(
                  move.names(), move.resource().getSpec().getVolumeReplication()));
    } else {
      move.cluster().patchVolume(old.getMetadata().getName(), VolumeObjects.releasePatch(policy));
    }
    if (!"Delete".equals(policy) && !ReplicaMove.promoted(move)) {
      move.normal(
          "SourceKept",
          "PersistentVolume "
              + old.getMetadata().getName()
              + " on node "
              + status.getSourceNode()
              + " is Released and kept (reclaim policy "
              + policy
              + "); delete it and its volume by hand when no longer needed");
    }
    status.setCompletionTime(move.now().toString());
    String message =
        (ReplicaMove.promoted(move)
                ? "failed over PersistentVolumeClaim "
                : "moved PersistentVolumeClaim ")
            + names.claim()
            + " from node "
            + status.getSourceNode()
            + " to node "
            + status.getTargetNode()
            + ": "
            + MoveStatusModel.size(MoveStatusModel.bytes(status.getBytesCopied()))
            + " copied"
            + (status.getCopyRate() == null ? "" : " (pre-copy at " + status.getCopyRate() + ")")
            + ", "
            + MoveStatusModel.size(MoveStatusModel.bytes(status.getDeltaBytes()))
            + " changed at the cut-over, which took "
            + status.getCutOverDuration();
    move.condition(MoveStatusModel.SUCCEEDED, true, "Succeeded", message);
    move.phase(MovePhase.Succeeded, message);
    move.normal("Succeeded", message);
    move.save();
    return null;
  }
}
