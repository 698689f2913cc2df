package io.thinvol.operator.replicate;

import io.thinvol.addons.call.MoveCopier;
import io.thinvol.addons.resolve.DriverEndpoint;
import io.thinvol.api.v1alpha1.ReplicaPoint;
import io.thinvol.api.v1alpha1.VolumeReplicationStatus;
import io.thinvol.operator.transfer.QuickAnswers;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * A recorded replica told to both drivers (MoveCopy/Synced): the primary's records its sync point
 * and deletes the older snapshot, the standby's deletes the older replica. Only after the replica
 * is in the status: a failover until then promotes the older one, which still exists. The next sync
 * waits for it, so that no older snapshot is left behind.
 */
final class SyncAcknowledgement {

  private SyncAcknowledgement() {}

  /** Whether both drivers took it; the status says why not otherwise. */
  static boolean run(Replication replication, ReplicatedClaim claim) {
    VolumeReplicationStatus status = replication.status();
    ReplicaPoint replica = status.getReplica();
    ReplicationServices services = replication.services();
    MoveCopier.Synced primary = synced(status, claim.handle(), replica.getSnapshotHandle());
    MoveCopier.Synced standby =
        synced(status, replica.getVolumeHandle(), replica.getSnapshotHandle());
    for (var told :
        List.of(new Told(claim.node(), primary), new Told(replica.getNode(), standby))) {
      Optional<DriverEndpoint> endpoint = services.endpoints().on(claim.backend(), told.node());
      QuickAnswers.Asked<List<String>> asked =
          QuickAnswers.ask(
              services.copier(),
              endpoint,
              (copier, driver) -> copier.synced(driver, told.request(), QuickAnswers.QUICK));
      if (asked.failure() != null) {
        replication.message(
            "telling the driver on node "
                + told.node()
                + " that sync "
                + replica.getSync()
                + " is done: "
                + asked.failure().getCode()
                + " "
                + asked.failure().getDescription()
                + "; the next sync waits for it");
        return false;
      }
    }
    replica.setAcknowledged(true);
    return true;
  }

  private record Told(String node, MoveCopier.Synced request) {}

  private static MoveCopier.Synced synced(
      VolumeReplicationStatus status, String volumeId, String snapshotId) {
    Duration took =
        Duration.between(
            Instant.parse(status.getLastStartTime()),
            Instant.parse(status.getLastCompletionTime()));
    return new MoveCopier.Synced(
        volumeId,
        snapshotId,
        Instant.parse(status.getLastSyncTime()),
        took,
        status.getLastSyncBytes() == null ? 0 : status.getLastSyncBytes());
  }
}
