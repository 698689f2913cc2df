package io.thinvol.operator.move;

import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.thinvol.addons.call.MoveCopier;
import io.thinvol.addons.call.MoveCopier.CopiedIn;
import io.thinvol.api.v1alpha1.VolumeReplication;
import io.thinvol.operator.transfer.QuickAnswers;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * A failover's cut-over: no snapshot and no copy (the source node is dead), the replica on the
 * target is the new volume as it is. Its PersistentVolume is made and the claim re-created bound to
 * it; only once the claim is bound, so that the cut-over can only finish forward, is the replica
 * promoted (before, its driver refuses to stage it, and a rollback leaves it a replica). The old
 * volume stays at Retain, marked as the replication's stale copy.
 */
final class ReplicaPromotion {

  static final Duration RETRY = Duration.ofSeconds(5);

  private ReplicaPromotion() {}

  /**
   * @return when to look again
   */
  static Duration rebind(Move move, PersistentVolume old, SavedClaim claim) {
    MoveNames names = move.names();
    MoveCluster cluster = move.cluster();
    String handle = move.status().getReplicaVolumeHandle();
    if (cluster.volume(names.newVolume()).isEmpty()) {
      CutOverCopy.recorded(move, new CopiedIn(handle, 0, "", 0));
      cluster.ensure(
          VolumeObjects.moved(
              names,
              old,
              handle,
              0,
              move.status().getTargetNode(),
              move.status().getOriginalReclaimPolicy()));
    }
    cluster.ensure(ClaimObjects.recreated(names, move.name(), claim, names.newVolume()));
    move.message(
        "re-created PersistentVolumeClaim "
            + names.claim()
            + " for the replica "
            + handle
            + " on node "
            + move.status().getTargetNode()
            + " (PersistentVolume "
            + names.newVolume()
            + "), promoted once bound");
    move.save();
    return CutOverCopy.POLL;
  }

  /**
   * The replica promoted, once the claim is bound to it.
   *
   * @return null when done, else when to try again
   */
  static Duration promote(Move move, PersistentVolume old) {
    String handle = move.status().getTargetVolumeHandle();
    VolumeReplication replication =
        move.cluster()
            .client()
            .resources(VolumeReplication.class)
            .inNamespace(move.names().namespace())
            .withName(move.resource().getSpec().getVolumeReplication())
            .get();
    String id = replication == null ? "" : replication.getMetadata().getUid();
    QuickAnswers.Asked<Boolean> asked =
        SourceFacts.ask(
            move,
            old,
            move.status().getTargetNode(),
            (copier, driver) ->
                copier.role(driver, MoveCopier.Role.PROMOTE, handle, id, true, QuickAnswers.QUICK));
    if (asked.failure() == null) {
      return null;
    }
    move.message(
        "promoting the replica "
            + handle
            + " on node "
            + move.status().getTargetNode()
            + ": "
            + asked.failure().getCode()
            + " "
            + asked.failure().getDescription()
            + "; trying again");
    move.save();
    return RETRY;
  }

  /**
   * A failover rolled back before the claim was re-created: the PersistentVolume made for the
   * replica is bound to a claim that never existed and kept at Retain, so that no provisioner
   * deletes the replica, which stays the replication's (never promoted).
   */
  static void release(Move move) {
    MoveNames names = move.names();
    if (move.cluster().volume(names.newVolume()).isEmpty()) {
      return;
    }
    move.cluster().patchVolume(names.newVolume(), VolumeObjects.unclaimedPatch(names, "Retain"));
  }

  /** The old volume after a failover: the move's marks off, Retain kept, the stale copy's mark. */
  static String stalePatch(MoveNames names, String replication) {
    Map<String, Object> annotations = new HashMap<>();
    annotations.put(MoveNames.VOLUME_MOVE, null);
    annotations.put(MoveNames.SAVED_CLAIM, null);
    annotations.put(VolumeReplication.STALE_COPY_OF, names.namespace() + "/" + replication);
    return Serialization.asJson(Map.of("metadata", Map.of("annotations", annotations)));
  }
}
