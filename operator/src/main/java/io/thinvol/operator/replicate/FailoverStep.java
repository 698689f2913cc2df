package io.thinvol.operator.replicate;

import io.thinvol.api.v1alpha1.FailoverRecord;
import io.thinvol.api.v1alpha1.ReplicaPoint;
import io.thinvol.api.v1alpha1.VolumeReplicationStatus;
import java.time.Duration;

/**
 * The claim's node is dead and fenced (out-of-service taint, or the Node deleted): a VolumeMove
 * promotes the replica recorded last and rebinds the claim to it, without waiting for a sync in
 * flight (it pulls from the dead node). What was written on the old node after the last sync is
 * lost, and said so.
 */
final class FailoverStep {

  static final Duration POLL = Duration.ofSeconds(2);
  static final Duration RECHECK = Duration.ofSeconds(30);

  private FailoverStep() {}

  static Duration run(Replication replication, ReplicatedClaim claim, String fenced) {
    VolumeReplicationStatus status = replication.status();
    ReplicationServices services = replication.services();
    ReplicationNames names = replication.names();
    ReplicaPoint replica = status.getReplica();
    String problem =
        replica == null || !claim.handle().equals(replica.getSourceVolumeHandle())
            ? "the claim has no replica yet: its data is on node " + claim.node() + " only"
            : services
                .fence()
                .fenced(replica.getNode())
                .map(why -> "its standby " + why)
                .orElse(null);
    if (problem != null) {
      String why = fenced + ", but it cannot be failed over: " + problem;
      replication.condition(ReplicationConditions.DEGRADED, true, "FailoverImpossible", why);
      replication.message(why);
      services.events().recurringWarning(replication.resource(), "FailoverImpossible", why);
      replication.save();
      return RECHECK;
    }
    String move =
        ReplicationMoves.ensure(
            services.client(),
            replication.resource(),
            ReplicationMoves.FAILOVER,
            replica.getNode());
    FailoverRecord failover = new FailoverRecord();
    failover.setTime(replication.now().toString());
    failover.setFromNode(claim.node());
    failover.setToNode(replica.getNode());
    failover.setDataLostAfter(status.getLastSyncTime());
    failover.setVolumeMove(move);
    status.setLastFailover(failover);
    status.setVolumeMove(move);
    String what =
        fenced
            + ": promoting the replica of "
            + status.getLastSyncTime()
            + " on node "
            + replica.getNode()
            + " (VolumeMove "
            + move
            + "); writes to PersistentVolumeClaim "
            + names.claim()
            + " after "
            + status.getLastSyncTime()
            + " are lost";
    replication.condition(ReplicationConditions.DEGRADED, true, "FailingOver", what);
    replication.condition(ReplicationConditions.REPLICATING, false, "FailingOver", what);
    replication.message(what);
    replication.warning("FailingOver", what);
    replication.save();
    return POLL;
  }
}
