package io.thinvol.operator.move;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.thinvol.api.v1alpha1.MovePhase;
import io.thinvol.api.v1alpha1.VolumeMoveStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * PreCopying: snapshot S1 of the claim, then a claim restored from it on the target node (that
 * node's provisioner pulls S1 from the source node). The application runs on meanwhile.
 */
final class PreCopyStep {

  static final Duration POLL = Duration.ofSeconds(2);

  private PreCopyStep() {}

  /**
   * @return when to look again, or null when the pre-copy is done (WaitingForCutOver)
   */
  static Duration run(Move move) throws MoveFailure {
    if (ReplicaMove.of(move)) {
      replicaIsThePreCopy(move);
      return null;
    }
    MoveNames names = move.names();
    MoveCluster cluster = move.cluster();
    PersistentVolume old = SourceFacts.oldVolume(move);
    PersistentVolumeClaim claim =
        cluster
            .claim(names.namespace(), names.claim())
            .filter(c -> c.getMetadata().getDeletionTimestamp() == null)
            .orElseThrow(
                () ->
                    MoveFailure.failed(
                        "ClaimGone",
                        "PersistentVolumeClaim "
                            + names.claim()
                            + " was deleted during the pre-copy"));
    GenericKubernetesResource snapshot =
        cluster
            .snapshot(names.namespace(), names.preSnapshot())
            .orElseGet(
                () ->
                    cluster.ensure(SnapshotObjects.preCopy(names, SourceFacts.snapshotClass(old))));
    Optional<String> error = SnapshotObjects.error(snapshot);
    if (error.isPresent()) {
      throw MoveFailure.failed(
          "PreCopySnapshotFailed",
          "VolumeSnapshot " + names.preSnapshot() + " of the claim failed: " + error.get());
    }
    if (!SnapshotObjects.ready(snapshot)) {
      return waiting(move, "waiting for VolumeSnapshot " + names.preSnapshot() + " to be ready");
    }
    String target = move.status().getTargetNode();
    PersistentVolumeClaim base =
        cluster
            .claim(names.namespace(), names.baseClaim())
            .orElseGet(() -> cluster.ensure(ClaimObjects.base(names, claim, target)));
    String baseVolume = base.getSpec() == null ? null : base.getSpec().getVolumeName();
    boolean bound = base.getStatus() != null && "Bound".equals(base.getStatus().getPhase());
    Optional<PersistentVolume> copy = bound ? cluster.volume(baseVolume) : Optional.empty();
    if (copy.isEmpty()) {
      return waiting(
          move,
          "copying VolumeSnapshot "
              + names.preSnapshot()
              + " to node "
              + target
              + " (PersistentVolumeClaim "
              + names.baseClaim()
              + " is not bound yet)");
    }
    finish(move, old, copy.get());
    return null;
  }

  private static void finish(Move move, PersistentVolume old, PersistentVolume copy) {
    VolumeMoveStatus status = move.status();
    Instant now = move.now();
    Instant started = Instant.parse(status.getStartTime());
    String target = status.getTargetNode();
    Optional<Long> copied =
        SourceFacts.allocated(move, old, target, copy.getSpec().getCsi().getVolumeHandle());
    copied.ifPresent(
        bytes -> {
          status.setBytesCopied(MoveStatusModel.bytes(bytes));
          status.setCopyRate(MoveStatusModel.rate(bytes, java.time.Duration.between(started, now)));
        });
    status.setPreCopyCompletionTime(now.toString());
    String took = MoveStatusModel.seconds(java.time.Duration.between(started, now));
    String message =
        "pre-copied "
            + copied.map(MoveStatusModel::size).orElse("the snapshot")
            + " to node "
            + target
            + " in "
            + took
            + (status.getCopyRate() == null ? "" : " (" + status.getCopyRate() + ")");
    move.condition(MoveStatusModel.PRE_COPIED, true, "PreCopied", message);
    move.normal("PreCopied", message);
    move.phase(
        MovePhase.WaitingForCutOver,
        "pre-copied; the cut-over begins once no pod uses PersistentVolumeClaim "
            + move.names().claim());
    move.save();
  }

  /** A replication's move: its replica on the target is the pre-copy; nothing is copied now. */
  private static void replicaIsThePreCopy(Move move) {
    VolumeMoveStatus status = move.status();
    status.setPreCopyCompletionTime(move.now().toString());
    String message =
        "the replica "
            + status.getReplicaVolumeHandle()
            + " of VolumeReplication "
            + move.resource().getSpec().getVolumeReplication()
            + " on node "
            + status.getTargetNode()
            + " is the pre-copy";
    move.condition(MoveStatusModel.PRE_COPIED, true, "Replica", message);
    move.normal("PreCopied", message);
    move.phase(
        MovePhase.WaitingForCutOver,
        message
            + "; the cut-over begins once no pod uses PersistentVolumeClaim "
            + move.names().claim());
    move.save();
  }

  private static Duration waiting(Move move, String message) {
    move.message(message);
    move.save();
    return POLL;
  }
}
