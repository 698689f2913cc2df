package io.thinvol.operator.move;

import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.grpc.Status;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.thinvol.addons.call.MoveCopier;
import io.thinvol.addons.call.MoveCopier.CopiedIn;
import io.thinvol.addons.resolve.DriverEndpoint;
import io.thinvol.api.v1alpha1.VolumeMoveStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * The cut-over once the claim is gone: S2 of the old volume ({@link CutSnapshot}; no pod can write
 * the volume any more), the changed blocks copied onto the pre-copy on the target node, the new
 * volume recorded in the status before its PersistentVolume is made, and the claim re-created bound
 * to it.
 */
final class CutOverCopy {

  static final Duration POLL = Duration.ofMillis(500);

  /** A driver call failing for these may succeed when asked again. */
  static final Set<Status.Code> PASSING =
      Set.of(
          Status.Code.UNAVAILABLE,
          Status.Code.DEADLINE_EXCEEDED,
          Status.Code.ABORTED,
          Status.Code.RESOURCE_EXHAUSTED,
          Status.Code.UNKNOWN);

  private CutOverCopy() {}

  /**
   * @return when to look again
   */
  static Duration run(Move move, PersistentVolume old) throws MoveFailure {
    MoveNames names = move.names();
    MoveCluster cluster = move.cluster();
    SavedClaim claim =
        SavedClaim.on(old)
            .orElseThrow(
                () ->
                    MoveFailure.failed(
                        "ClaimLost",
                        "PersistentVolume "
                            + old.getMetadata().getName()
                            + " does not hold the claim the cut-over deleted"));
    if (ReplicaMove.promoted(move)) {
      return ReplicaPromotion.rebind(move, old, claim);
    }
    CutSnapshot.State cut = CutSnapshot.ready(move, old);
    if (cut.handle() == null) {
      return cut.lookAgain();
    }
    Optional<PersistentVolume> made = cluster.volume(names.newVolume());
    if (made.isEmpty()) {
      Optional<CopiedIn> copied = copy(move, old, claim, cut.handle());
      if (copied.isEmpty()) {
        return POLL; // the copy runs; its end wakes the move
      }
      cluster.deleteClaim(names.namespace(), names.cut());
      if (cluster.claim(names.namespace(), names.cut()).isPresent()) {
        move.message("waiting for the copy's PersistentVolumeClaim " + names.cut() + " to be gone");
        move.save();
        return POLL;
      }
      cluster.ensure(
          VolumeObjects.moved(
              names,
              old,
              copied.get().volumeId(),
              copied.get().sizeBytes(),
              move.status().getTargetNode(),
              move.status().getOriginalReclaimPolicy()));
    }
    PersistentVolumeClaim recreated =
        ClaimObjects.recreated(names, move.name(), claim, names.newVolume());
    cluster.ensure(recreated);
    move.message(
        "re-created PersistentVolumeClaim "
            + names.claim()
            + " for PersistentVolume "
            + names.newVolume()
            + " on node "
            + move.status().getTargetNode());
    move.save();
    move.services().calls().forget(move.resource().getMetadata().getUid());
    return POLL;
  }

  /** The copy's result: taken once, recorded in the status before anything is made of it. */
  private static Optional<CopiedIn> copy(
      Move move, PersistentVolume old, SavedClaim claim, String snapshotHandle) throws MoveFailure {
    MoveNames names = move.names();
    String uid = move.resource().getMetadata().getUid();
    Optional<CopiedIn> held = move.services().calls().copied(uid);
    if (held.isPresent()) {
      // a copy that ended after the reconcile that started it: recorded now, once
      return Optional.of(recorded(move, held.get()));
    }
    MoveCluster cluster = move.cluster();
    String baseHandle = baseHandle(move);
    cluster.ensure(ClaimObjects.entitlement(names, claim));
    String target = move.status().getTargetNode();
    Optional<DriverEndpoint> endpoint = SourceFacts.endpoint(move, old, target);
    if (endpoint.isEmpty()) {
      passing(move, "TargetDriverMissing", "no ready driver pod on node " + target);
      return Optional.empty();
    }
    Optional<CompletableFuture<CopiedIn>> ended =
        move.services()
            .calls()
            .copy(
                ResourceID.fromResource(move.resource()),
                uid,
                () ->
                    move.services()
                        .calls()
                        .copier()
                        .copyIn(
                            endpoint.get(),
                            request(names, snapshotHandle, baseHandle),
                            CopyCalls.TIMEOUT));
    if (ended.isEmpty()) {
      move.message(
          "copying the blocks changed since the pre-copy to node "
              + target
              + " ("
              + endpoint.get()
              + ")");
      move.save();
      return Optional.empty();
    }
    CopiedIn copied;
    try {
      copied = ended.get().join();
    } catch (CompletionException e) {
      Status status = Status.fromThrowable(e.getCause());
      String why =
          "the copy on node "
              + target
              + " failed: "
              + status.getCode()
              + " "
              + status.getDescription();
      if (PASSING.contains(status.getCode())) {
        passing(move, "CopyFailed", why);
        return Optional.empty();
      }
      throw MoveFailure.failed("CopyFailed", why);
    }
    return Optional.of(recorded(move, copied));
  }

  /**
   * The copy the cut-over asks of the target: the changes since the pre-copy ({@code baseHandle})
   * up to S2, a new volume named for the move, entitled by the copy's claim.
   */
  static MoveCopier.CopyIn request(MoveNames names, String snapshotHandle, String baseHandle) {
    return new MoveCopier.CopyIn(
        names.newVolume(), snapshotHandle, baseHandle, names.namespace(), names.cut());
  }

  /** The pre-copy's volume on the target: the restored claim's, or a replication's replica. */
  private static String baseHandle(Move move) throws MoveFailure {
    if (ReplicaMove.of(move)) {
      return move.status().getReplicaVolumeHandle();
    }
    MoveNames names = move.names();
    MoveCluster cluster = move.cluster();
    PersistentVolumeClaim base =
        cluster
            .claim(names.namespace(), names.baseClaim())
            .orElseThrow(
                () ->
                    MoveFailure.failed(
                        "PreCopyLost",
                        "PersistentVolumeClaim " + names.baseClaim() + " (the pre-copy) is gone"));
    return cluster
        .volume(base.getSpec().getVolumeName())
        .map(pv -> pv.getSpec().getCsi().getVolumeHandle())
        .orElseThrow(
            () -> MoveFailure.failed("PreCopyLost", "the pre-copy's PersistentVolume is gone"));
  }

  /** The new volume and the copy's figures in the status, saved, before anything is made of it. */
  static CopiedIn recorded(Move move, CopiedIn copied) {
    VolumeMoveStatus status = move.status();
    if (copied.volumeId().equals(status.getTargetVolumeHandle())) {
      return copied; // asked again after a restart, or taken again: the figures are recorded
    }
    status.setTargetVolume(move.names().newVolume());
    status.setTargetVolumeHandle(copied.volumeId());
    status.setDeltaBytes(MoveStatusModel.bytes(copied.deltaBytes()));
    status.setBytesCopied(
        MoveStatusModel.bytes(
            MoveStatusModel.bytes(status.getBytesCopied()) + copied.deltaBytes()));
    move.message("copied " + MoveStatusModel.size(copied.deltaBytes()) + " of changed blocks");
    move.save(); // the new volume is known before its PersistentVolume: a rollback deletes it
    return copied;
  }

  /**
   * A failure that may pass, until the backend's cut-over deadline ({@link MoveDeadlines}) after
   * the cut-over began: then it rolls back.
   *
   * @param reason null while merely waiting
   */
  static Duration passing(Move move, String reason, String message) throws MoveFailure {
    Instant since = Instant.parse(move.status().getCutOverStartTime());
    Duration deadline = MoveDeadlines.of(move).cutOver();
    if (move.now().isAfter(since.plus(deadline))) {
      throw MoveFailure.failed(
          reason == null ? "CutOverTimedOut" : reason,
          message + " (for " + MoveDeadlines.say(deadline) + ")");
    }
    move.message(reason == null ? message : message + "; trying again");
    move.save();
    return reason == null ? POLL : Duration.ofSeconds(5);
  }
}
