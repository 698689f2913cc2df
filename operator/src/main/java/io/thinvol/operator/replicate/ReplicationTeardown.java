package io.thinvol.operator.replicate;

import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.thinvol.addons.call.MoveCopier;
import io.thinvol.api.v1alpha1.ReplicaPoint;
import io.thinvol.api.v1alpha1.VolumeReplicationStatus;
import io.thinvol.operator.transfer.QuickAnswers;
import java.time.Duration;
import java.util.Optional;

/**
 * A deleted VolumeReplication: once its switchover or failover and its sync in flight have ended,
 * the replica is deleted on the standby and the primary's driver stops replicating (which deletes
 * its sync snapshot, and a snapshot of a sync that never ended by name). The claim and its volume
 * are not touched, nor is a stale copy (a Warning names it). A driver that cannot be asked is named
 * in a Warning: what it holds stays in its node's data dir.
 */
final class ReplicationTeardown {

  static final Duration POLL = Duration.ofSeconds(2);

  private ReplicationTeardown() {}

  /**
   * @return when to look again, or null when the finalizer may go
   */
  static Duration run(Replication replication) {
    VolumeReplicationStatus status = replication.status();
    ReplicationServices services = replication.services();
    ReplicationNames names = replication.names();
    if (status.getVolumeMove() != null && MoveFollowUp.run(replication) != null) {
      return MoveFollowUp.POLL; // the claim is between two volumes: the move ends first
    }
    if (services.calls().anyRuns(names.calls())) {
      replication.message("deleting: waiting for the sync in flight to end");
      replication.save();
      return POLL;
    }
    Optional<String> backend = replication.backend();
    ReplicaPoint replica = status.getReplica();
    if (replica != null && backend.isPresent()) {
      tell(
          replication,
          backend.get(),
          replica.getNode(),
          "delete the replica " + replica.getVolumeHandle(),
          (copier, driver) ->
              copier.dropVolume(
                  driver,
                  names.sync(replica.getSync()),
                  replica.getSnapshotHandle(),
                  QuickAnswers.QUICK));
    }
    Optional<String> primary = primaryVolume(replication);
    if (primary.isPresent() && backend.isPresent() && status.getPrimaryNode() != null) {
      tell(
          replication,
          backend.get(),
          status.getPrimaryNode(),
          "stop replicating volume " + primary.get(),
          (copier, driver) ->
              copier.role(
                  driver,
                  MoveCopier.Role.DISABLE,
                  primary.get(),
                  names.uid(),
                  false,
                  QuickAnswers.QUICK));
      if (status.getLastSyncAttempt() != null) {
        tell(
            replication,
            backend.get(),
            status.getPrimaryNode(),
            "delete the snapshot of sync " + status.getLastSyncAttempt(),
            (copier, driver) ->
                copier.dropSnapshot(
                    driver,
                    new MoveCopier.SnapshotOf(
                        names.sync(status.getLastSyncAttempt()), primary.get()),
                    QuickAnswers.QUICK));
      }
    }
    if (status.getStaleCopy() != null) {
      replication.warning(
          "StaleCopyLeft",
          "the stale copy on node "
              + status.getStaleCopy().getNode()
              + " (PersistentVolume "
              + status.getStaleCopy().getPersistentVolume()
              + ") is kept; delete that PersistentVolume, after setting its reclaim policy to"
              + " Delete, when you no longer need it");
    }
    services.metrics().forget(names);
    replication.save();
    return null;
  }

  private static <T> void tell(
      Replication replication,
      String backend,
      String node,
      String what,
      java.util.function.BiFunction<
              MoveCopier,
              io.thinvol.addons.resolve.DriverEndpoint,
              java.util.concurrent.CompletableFuture<T>>
          call) {
    ReplicationServices services = replication.services();
    if (services.fence().fenced(node).isPresent()) {
      return; // the node is gone or fenced: there is nothing to tell
    }
    QuickAnswers.Asked<T> asked =
        QuickAnswers.ask(services.copier(), services.endpoints().on(backend, node), call);
    if (asked.failure() != null && asked.failure().getCode() != io.grpc.Status.Code.NOT_FOUND) {
      replication.warning(
          "ReplicationLeft",
          "could not ask the driver on node "
              + node
              + " to "
              + what
              + " ("
              + asked.failure().getDescription()
              + "); it stays in that node's data dir until deleted");
    }
  }

  /** The claim's volume, if the claim is still bound to one. */
  private static Optional<String> primaryVolume(Replication replication) {
    ReplicationNames names = replication.names();
    var client = replication.services().client();
    PersistentVolumeClaim claim =
        client
            .persistentVolumeClaims()
            .inNamespace(names.namespace())
            .withName(names.claim())
            .get();
    if (claim == null || claim.getSpec() == null || claim.getSpec().getVolumeName() == null) {
      return Optional.empty();
    }
    PersistentVolume volume =
        client.persistentVolumes().withName(claim.getSpec().getVolumeName()).get();
    return volume == null || volume.getSpec().getCsi() == null
        ? Optional.empty()
        : Optional.of(volume.getSpec().getCsi().getVolumeHandle());
  }
}
