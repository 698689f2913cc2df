package io.thinvol.operator.move;

import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.thinvol.api.kube.Conditions;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A cut-over that cannot finish after the claim was deleted gives the claim its old volume back:
 * the new volume, if one was made, handed to its provisioner to delete; the old volume made
 * Available to the claim's name; the claim re-created bound to it (the admission policy still keeps
 * the name for the operator); once bound, the old volume's policy restored, the temporaries
 * removed. Each step looks at what exists, so a restarted operator goes on where it stopped.
 */
final class Rollback {

  static final String ROLLING_BACK = "RollingBack";

  static final Duration POLL = Duration.ofMillis(500);

  private static final Logger log = LoggerFactory.getLogger(Rollback.class);

  private Rollback() {}

  /** Whether a rollback was begun (the CutOver condition says so). */
  static boolean begun(Move move) {
    return Conditions.find(move.status().getConditions(), MoveStatusModel.CUT_OVER)
        .map(c -> ROLLING_BACK.equals(c.getReason()))
        .orElse(false);
  }

  /** Records why the cut-over rolls back, before any step of it. */
  static void begin(Move move, String reason, String why) {
    move.condition(MoveStatusModel.CUT_OVER, false, ROLLING_BACK, reason + ": " + why);
    move.message("rolling back: " + why);
    move.warning("RollingBack", why + "; giving the claim its old volume back");
    move.save();
  }

  /**
   * @return when to look again, or null when the claim is bound to its old volume again
   */
  static Duration run(Move move, Optional<PersistentVolumeClaim> claim, PersistentVolume old) {
    MoveNames names = move.names();
    MoveCluster cluster = move.cluster();
    String uid = move.resource().getMetadata().getUid();
    Optional<String> inFlight = move.services().calls().inFlight(uid);
    if (inFlight.isPresent()) {
      Optional<String> unanswerable = unanswerable(move, old);
      if (unanswerable.isEmpty()) {
        // What it made is known when it ends, so that it is not left behind on either node.
        move.message("rolling back: waiting for " + inFlight.get() + " to end");
        move.save();
        return POLL;
      }
      // A call to a node gone quiet may never end (its connection is not reset): given up, what
      // it made is dropped by name below, as after a restart.
      log.info("rolling back: giving up {}: {}", inFlight.get(), unanswerable.get());
      move.services().calls().cancel(uid);
    }
    move.services()
        .calls()
        .copied(uid)
        .filter(copied -> move.status().getTargetVolumeHandle() == null)
        .ifPresent(
            copied -> {
              move.status().setTargetVolumeHandle(copied.volumeId());
              move.save();
            });
    move.services().calls().forget(uid);
    // The copy's claim may hold the copy then.
    boolean keeping = !ReplicaMove.of(move) && KeptCopy.applies(move);
    if (!keeping) {
      cluster.deleteClaim(names.namespace(), names.cut());
      discardNewVolume(move, old);
    }
    ClaimState state = ClaimState.of(claim, names, move.name());
    if (state == ClaimState.DELETING) {
      move.message(
          "rolling back: waiting for PersistentVolumeClaim " + names.claim() + " to be gone");
      move.save();
      return POLL;
    }
    if (state == ClaimState.ABSENT) {
      if (old.getSpec().getClaimRef() != null && old.getSpec().getClaimRef().getUid() != null) {
        cluster.patchVolume(old.getMetadata().getName(), VolumeObjects.reopenPatch());
      }
      SavedClaim saved = SavedClaim.on(old).orElseThrow();
      cluster.ensure(
          ClaimObjects.recreated(names, move.name(), saved, old.getMetadata().getName()));
      move.message(
          "rolling back: re-created PersistentVolumeClaim "
              + names.claim()
              + " for its old PersistentVolume "
              + old.getMetadata().getName());
      move.save();
      return POLL;
    }
    PersistentVolumeClaim back = claim.orElseThrow();
    if (!ClaimState.bound(back, old.getMetadata().getName())) {
      move.message(
          "rolling back: waiting for PersistentVolumeClaim "
              + names.claim()
              + " to be bound to PersistentVolume "
              + old.getMetadata().getName());
      move.save();
      return POLL;
    }
    KeptCopy.Kept kept = null;
    if (keeping) {
      KeptCopy.Decided decided = KeptCopy.decide(move, old);
      if (decided.lookAgain() != null) {
        return decided.lookAgain();
      }
      kept = decided.kept();
    } else {
      Duration copyRunning = UnrecordedCopy.drop(move, old);
      if (copyRunning != null) {
        return copyRunning;
      }
    }
    cluster.patchVolume(
        old.getMetadata().getName(),
        VolumeObjects.releasePatch(move.status().getOriginalReclaimPolicy()));
    Map<String, Object> annotations = new HashMap<>();
    annotations.put(MoveNames.MOVED_BY, null);
    cluster.patchClaim(
        names.namespace(),
        names.claim(),
        Serialization.asJson(Map.of("metadata", Map.of("annotations", annotations))));
    if (!ReplicaMove.promoted(move)) {
      CutSnapshot.dropUnimported(move, old); // a failover took none
    }
    // The claims restored from the snapshots are bound or gone: the snapshots may go.
    if (kept == null) {
      TemporaryObjects.removeAfterFailure(move);
    } else {
      TemporaryObjects.removeKeeping(move, kept);
    }
    String why =
        Conditions.find(move.status().getConditions(), MoveStatusModel.CUT_OVER)
            .map(c -> c.getMessage())
            .orElse("the cut-over failed");
    move.condition(MoveStatusModel.CUT_OVER, false, "RolledBack", why);
    move.warning(
        "RolledBack",
        "PersistentVolumeClaim "
            + names.claim()
            + " is bound to its old PersistentVolume "
            + old.getMetadata().getName()
            + " again");
    TemporaryObjects.end(
        move, "RolledBack", why + "; the claim is bound to its old volume again", false);
    return null;
  }

  /**
   * Why a call in flight to the move's nodes may never answer: a node not Ready, or no ready driver
   * pod on one.
   */
  private static Optional<String> unanswerable(Move move, PersistentVolume old) {
    Optional<String> notReady = NodeWait.notReady(move);
    if (notReady.isPresent()) {
      return notReady;
    }
    for (String node :
        new String[] {move.status().getSourceNode(), move.status().getTargetNode()}) {
      if (SourceFacts.endpoint(move, old, node).isEmpty()) {
        return Optional.of("no ready driver pod on node " + node);
      }
    }
    return Optional.empty();
  }

  /**
   * A volume the copy made on the target: a PersistentVolume bound to a claim that never existed,
   * with the Delete policy, so that the target's provisioner deletes it.
   */
  private static void discardNewVolume(Move move, PersistentVolume old) {
    String handle = move.status().getTargetVolumeHandle();
    if (handle == null) {
      return;
    }
    if (ReplicaMove.promoted(move)) {
      ReplicaPromotion.release(move); // the replica is the replication's: never deleted here
      return;
    }
    MoveNames names = move.names();
    Optional<PersistentVolume> made = move.cluster().volume(names.newVolume());
    if (made.isEmpty()) {
      move.cluster()
          .ensure(VolumeObjects.discarded(names, old, handle, move.status().getTargetNode()));
      return;
    }
    var ref = made.get().getSpec().getClaimRef();
    if (ref == null || !VolumeObjects.discardedClaimUid(names).equals(ref.getUid())) {
      move.cluster().patchVolume(names.newVolume(), VolumeObjects.unclaimedPatch(names, "Delete"));
    }
  }
}
