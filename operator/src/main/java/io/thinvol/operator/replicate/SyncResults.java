package io.thinvol.operator.replicate;

import io.thinvol.api.Durations;
import io.thinvol.api.v1alpha1.ReplicaPoint;
import io.thinvol.api.v1alpha1.VolumeReplicationStatus;
import java.time.Duration;
import java.time.Instant;

/** A sync's result written to the status (saved) before its older sync point is deleted. */
final class SyncResults {

  private SyncResults() {}

  static void recorded(
      Replication replication, ReplicatedClaim claim, String standby, SyncRun.Result result) {
    VolumeReplicationStatus status = replication.status();
    boolean whole = SyncStep.base(status, standby) == null;
    Instant started = Instant.parse(status.getLastStartTime());
    Instant now = replication.now();
    Duration took = Duration.between(started, now);
    ReplicaPoint replica = new ReplicaPoint();
    replica.setNode(standby);
    replica.setVolumeHandle(result.replica().volumeId());
    replica.setSourceVolumeHandle(claim.handle());
    replica.setSnapshotHandle(result.snapshotId());
    replica.setSync(status.getLastSyncAttempt());
    replica.setAcknowledged(false);
    status.setReplica(replica);
    status.setLastSyncTime(status.getLastStartTime());
    status.setLastCompletionTime(now.toString());
    status.setLastSyncDuration(Durations.text(took));
    status.setLastSyncBytes(result.replica().deltaBytes());
    status.setState(SyncStep.state(status));
    String synced =
        "node "
            + standby
            + " holds PersistentVolumeClaim "
            + replication.names().claim()
            + " as of "
            + status.getLastSyncTime()
            + ": "
            + bytes(result.replica().deltaBytes())
            + (whole ? " copied in full" : " of changed blocks sent")
            + " in "
            + status.getLastSyncDuration();
    replication.condition(ReplicationConditions.REPLICATING, true, "Synced", synced);
    if (whole) {
      replication.condition(ReplicationConditions.RESYNCING, false, "Resynced", synced);
      replication.normal("Resynced", synced);
    }
    if (status.getStaleCopy() == null) { // a stale copy kept stays Degraded (StaleCopyKept)
      replication.condition(ReplicationConditions.DEGRADED, false, "Synced", synced);
    }
    replication.condition(
        ReplicationConditions.COMPLETED,
        true,
        status.getState().name(),
        "the claim's volume on node " + claim.node() + " is the primary and is replicated");
    replication.message(synced);
    replication
        .services()
        .metrics()
        .synced(
            replication.names(),
            claim.parameters().interval(),
            Instant.parse(status.getLastSyncTime()),
            took,
            result.replica().deltaBytes());
    replication.save();
  }

  static String bytes(long bytes) {
    if (bytes < 1 << 20) {
      return bytes + " bytes";
    }
    return String.format(java.util.Locale.ROOT, "%.1f MiB", bytes / (double) (1 << 20));
  }
}
