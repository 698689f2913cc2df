package io.thinvol.operator.move;

import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.thinvol.api.v1alpha1.MovePhase;
import io.thinvol.api.v1alpha1.ReplicaPoint;
import io.thinvol.api.v1alpha1.VolumeMoveStatus;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Pending: the move is checked and accepted (source node and volume, target node chosen when the
 * spec names none, the bytes to copy), then waits for a copy slot on its source node.
 */
final class PendingStep {

  /** A slot's release wakes the waiting moves; this is the fallback. */
  static final Duration SLOT_RECHECK = Duration.ofSeconds(10);

  /** No node can take the volume now; one may join. */
  static final Duration TARGET_RECHECK = Duration.ofSeconds(30);

  private PendingStep() {}

  /**
   * @return when to look again, or null when the move went on to PreCopying
   */
  static Duration run(Move move) throws MoveFailure {
    VolumeMoveStatus status = move.status();
    if (status.getSourceNode() == null) {
      MoveValidation.Source source = MoveValidation.check(move);
      String target = move.resource().getSpec().getTargetNode();
      if (ReplicaMove.of(move)) {
        ReplicaPoint replica = ReplicaMove.replica(move);
        target = replica.getNode();
        status.setReplicaVolumeHandle(replica.getVolumeHandle());
      }
      if (target == null || target.isEmpty()) {
        Optional<String> chosen =
            move.services()
                .targets()
                .choose(
                    source.node(), source.driver(), source.claim().getSpec().getStorageClassName());
        if (chosen.isEmpty()) {
          move.phase(
              MovePhase.Pending,
              "no node can take the volume: none other than "
                  + source.node()
                  + " runs driver "
                  + source.driver()
                  + ", is schedulable, is Ready and is not being evacuated");
          move.save();
          return TARGET_RECHECK;
        }
        target = chosen.get();
      }
      PersistentVolume volume = source.volume();
      status.setSourceNode(source.node());
      status.setTargetNode(target);
      status.setSourceVolume(volume.getMetadata().getName());
      SourceFacts.allocated(
              move, volume, source.node(), volume.getSpec().getCsi().getVolumeHandle())
          .ifPresent(bytes -> status.setBytesTotal(MoveStatusModel.bytes(bytes)));
      move.normal(
          "Accepted",
          "moving PersistentVolumeClaim "
              + move.names().claim()
              + " (PersistentVolume "
              + volume.getMetadata().getName()
              + ") from node "
              + source.node()
              + " to node "
              + target);
    }
    if (ReplicaMove.of(move)) {
      start(move); // nothing is copied from the source now: no slot is taken
      return null;
    }
    PersistentVolume volume = SourceFacts.oldVolume(move);
    int limit = SourceFacts.slots(move, volume);
    List<String> holders =
        move.services()
            .slots()
            .take(move.resource(), status.getSourceNode(), limit, () -> start(move));
    if (holders.isEmpty()) {
      return null;
    }
    move.phase(
        MovePhase.Pending,
        "waiting for a copy slot on node "
            + status.getSourceNode()
            + ": "
            + holders.size()
            + " moves copy from it ("
            + String.join(", ", holders)
            + "; spec.moves.maxConcurrentPerNode of the StorageBackend is "
            + limit
            + ")");
    move.save();
    return SLOT_RECHECK;
  }

  private static void start(Move move) {
    move.status().setStartTime(move.now().toString());
    move.phase(
        MovePhase.PreCopying,
        "taking VolumeSnapshot "
            + move.names().preSnapshot()
            + " and restoring it on node "
            + move.status().getTargetNode());
    move.normal(
        "PreCopyStarted",
        "copying a snapshot of the claim to node "
            + move.status().getTargetNode()
            + " while the application runs");
    move.save();
  }
}
