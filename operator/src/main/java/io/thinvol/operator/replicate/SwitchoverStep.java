package io.thinvol.operator.replicate;

import io.fabric8.kubernetes.api.model.Condition;
import io.thinvol.api.v1alpha1.ReplicaPoint;
import io.thinvol.api.v1alpha1.VolumeReplicationStatus;
import java.time.Duration;
import java.util.Objects;

/**
 * replicationState: secondary, asked while the claim's copy is the primary: a planned switchover to
 * the standby. It waits for an acknowledged replica on the standby (syncing meanwhile), then a
 * VolumeMove takes over: once no pod uses the claim, the blocks changed since the last sync are
 * copied onto the replica and the claim is rebound there. Nothing is lost.
 */
final class SwitchoverStep {

  static final Duration POLL = Duration.ofSeconds(30);

  private SwitchoverStep() {}

  /** Whether a switchover failed at this generation: it is not tried again until the spec moves. */
  static boolean failedAtThisGeneration(Replication replication) {
    return replication.status().getConditions().stream()
        .filter(c -> c.getType().equals(ReplicationConditions.COMPLETED))
        .filter(c -> "SwitchoverFailed".equals(c.getReason()))
        .map(Condition::getObservedGeneration)
        .anyMatch(g -> Objects.equals(g, replication.generation()));
  }

  static Duration run(Replication replication, ReplicatedClaim claim, String standby) {
    VolumeReplicationStatus status = replication.status();
    ReplicaPoint replica = status.getReplica();
    ReplicationServices services = replication.services();
    boolean ready =
        replica != null
            && standby.equals(replica.getNode())
            && claim.handle().equals(replica.getSourceVolumeHandle())
            && Boolean.TRUE.equals(replica.getAcknowledged())
            && !SyncStep.inProgress(status);
    if (!ready) {
      replication.condition(
          ReplicationConditions.COMPLETED,
          false,
          "SwitchoverWaiting",
          "the switchover waits for a replica on node " + standby);
      return SyncStep.run(replication, claim, standby);
    }
    String move =
        ReplicationMoves.ensure(
            services.client(), replication.resource(), ReplicationMoves.SWITCHOVER, standby);
    status.setVolumeMove(move);
    String what =
        "PersistentVolumeClaim "
            + replication.names().claim()
            + " steps down from node "
            + claim.node()
            + ": once no pod uses it, the blocks changed since "
            + status.getLastSyncTime()
            + " are copied onto the replica on node "
            + standby
            + " and the claim is rebound there (VolumeMove "
            + move
            + ")";
    replication.condition(ReplicationConditions.COMPLETED, false, "SwitchingOver", what);
    replication.message(what);
    replication.normal("SwitchingOver", what);
    replication.save();
    return POLL;
  }
}
