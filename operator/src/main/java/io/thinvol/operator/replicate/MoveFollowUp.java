package io.thinvol.operator.replicate;

import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.thinvol.api.v1alpha1.MovePhase;
import io.thinvol.api.v1alpha1.ReplicaPoint;
import io.thinvol.api.v1alpha1.ReplicaState;
import io.thinvol.api.v1alpha1.ReplicationState;
import io.thinvol.api.v1alpha1.StaleCopy;
import io.thinvol.api.v1alpha1.VolumeMove;
import io.thinvol.api.v1alpha1.VolumeReplicationStatus;
import io.thinvol.operator.transfer.QuickAnswers;
import java.time.Duration;

/**
 * A failover's or switchover's VolumeMove, followed to its end: the replication takes the new
 * layout when it succeeds (the claim's copy on the former standby; after a failover the old copy
 * kept as a stale copy, after a switchover the used replica dropped), and reports it when it fails.
 * Either way the next sync is a whole copy to the standby chosen then.
 */
final class MoveFollowUp {

  static final Duration POLL = Duration.ofSeconds(30);

  private MoveFollowUp() {}

  /**
   * @return when to look again, or null when the move ended and the replication goes on
   */
  static Duration run(Replication replication) {
    VolumeReplicationStatus status = replication.status();
    String name = status.getVolumeMove();
    VolumeMove move =
        replication
            .services()
            .client()
            .resources(VolumeMove.class)
            .inNamespace(replication.names().namespace())
            .withName(name)
            .get();
    if (move == null) {
      status.setVolumeMove(null);
      replication.message("VolumeMove " + name + " is gone");
      return null;
    }
    MovePhase phase = move.getStatus() == null ? null : move.getStatus().getPhase();
    boolean failover = ReplicationMoves.FAILOVER.equals(kind(move));
    if (phase == MovePhase.Failed) {
      status.setVolumeMove(null);
      String why =
          (failover ? "the failover" : "the switchover")
              + " failed (VolumeMove "
              + name
              + "): "
              + move.getStatus().getMessage();
      replication.warning(failover ? "FailoverFailed" : "SwitchoverFailed", why);
      replication.condition(
          ReplicationConditions.COMPLETED,
          false,
          failover ? "FailoverFailed" : "SwitchoverFailed",
          why
              + (failover
                  ? ""
                  : "; set replicationState to primary, then secondary again, to try again"));
      replication.message(why);
      replication.save();
      return failover ? FailoverStep.RECHECK : null;
    }
    if (phase != MovePhase.Succeeded) {
      replication.message(
          "VolumeMove "
              + name
              + (move.getStatus() == null
                  ? " is not started yet"
                  : " (" + phase + "): " + move.getStatus().getMessage()));
      replication.save();
      return POLL;
    }
    adopt(replication, move, failover);
    return null;
  }

  private static void adopt(Replication replication, VolumeMove move, boolean failover) {
    VolumeReplicationStatus status = replication.status();
    String from = move.getStatus().getSourceNode();
    String to = move.getStatus().getTargetNode();
    ReplicaPoint used = status.getReplica();
    String claim = replication.names().claim();
    if (failover) {
      StaleCopy stale = new StaleCopy();
      stale.setNode(from);
      stale.setPersistentVolume(move.getStatus().getSourceVolume());
      stale.setVolumeHandle(handleOf(replication, move.getStatus().getSourceVolume()));
      stale.setDemoted(false);
      status.setStaleCopy(stale);
      String lost = lost(claim, from, to, status.getLastSyncTime());
      replication.warning("FailedOver", lost);
      replication.condition(ReplicationConditions.DEGRADED, true, "FailedOver", lost);
      replication.condition(ReplicationConditions.COMPLETED, true, "FailedOver", lost);
      replication.message(lost);
    } else {
      dropUsedReplica(replication, used, to);
      String done =
          "PersistentVolumeClaim "
              + claim
              + " was switched over from node "
              + from
              + " to node "
              + to
              + " with nothing lost";
      if (replication.resource().getSpec().getReplicationState() == ReplicationState.secondary) {
        status.setState(ReplicaState.Secondary);
      }
      replication.normal("SwitchedOver", done);
      replication.condition(ReplicationConditions.COMPLETED, true, "SwitchedOver", done);
      replication.message(done);
    }
    status.setVolumeMove(null);
    status.setPrimaryNode(to);
    status.setStandbyNode(null);
    status.setReplica(null);
    if (SyncStep.inProgress(status)) {
      // a sync of the old layout (a failover does not wait for it): given up, its result unused
      status.setLastCompletionTime(replication.now().toString());
      replication.services().calls().forget(replication.names().calls());
    }
    replication.save();
  }

  /** What a failover lost, as the status and the Warning {@code FailedOver} say it. */
  static String lost(String claim, String from, String to, String lastSync) {
    return "PersistentVolumeClaim "
        + claim
        + " runs on node "
        + to
        + " from the replica of "
        + lastSync
        + ": what was written to it on node "
        + from
        + " after "
        + lastSync
        + " is lost";
  }

  /** The replica a switchover copied onto: the new volume is another, made from it. */
  private static void dropUsedReplica(Replication replication, ReplicaPoint used, String node) {
    if (used == null) {
      return;
    }
    ReplicationServices services = replication.services();
    QuickAnswers.Asked<Boolean> asked =
        QuickAnswers.ask(
            services.copier(),
            replication.backend().flatMap(backend -> services.endpoints().on(backend, node)),
            (copier, driver) ->
                copier.dropVolume(
                    driver,
                    replication.names().sync(used.getSync()),
                    used.getSnapshotHandle(),
                    QuickAnswers.QUICK));
    if (asked.failure() != null) {
      replication.warning(
          "ReplicaLeft",
          "could not ask the driver on node "
              + node
              + " to delete the replica "
              + used.getVolumeHandle()
              + " the switchover used ("
              + asked.failure().getDescription()
              + "); it stays in that node's data dir until deleted");
    }
  }

  private static String handleOf(Replication replication, String persistentVolume) {
    PersistentVolume volume =
        replication.services().client().persistentVolumes().withName(persistentVolume).get();
    return volume == null || volume.getSpec().getCsi() == null
        ? null
        : volume.getSpec().getCsi().getVolumeHandle();
  }

  private static String kind(VolumeMove move) {
    String name = move.getMetadata().getName();
    return name.contains("-" + ReplicationMoves.FAILOVER + "-")
        ? ReplicationMoves.FAILOVER
        : ReplicationMoves.SWITCHOVER;
  }
}
