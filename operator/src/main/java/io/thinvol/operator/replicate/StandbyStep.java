package io.thinvol.operator.replicate;

import io.thinvol.api.kube.Conditions;
import io.thinvol.api.v1alpha1.FailoverRecord;
import io.thinvol.api.v1alpha1.ReplicaPoint;
import io.thinvol.api.v1alpha1.VolumeReplicationStatus;
import io.thinvol.operator.transfer.QuickAnswers;
import java.util.Optional;

/**
 * The standby node: kept while it can hold the replica (it exists, is not fenced, is not the
 * primary's node and runs the driver), chosen again otherwise (the class's labels, another zone
 * first, the most capacity).
 */
final class StandbyStep {

  private StandbyStep() {}

  /** The standby, or empty when no node can be one now (the status says why). */
  static Optional<String> ensure(Replication replication, ReplicatedClaim claim) {
    ReplicationServices services = replication.services();
    VolumeReplicationStatus status = replication.status();
    String current = status.getStandbyNode();
    if (current != null
        && !current.equals(claim.node())
        && services.fence().fenced(current).isEmpty()
        && services.targets().serves(current, claim.driver())) {
      return Optional.of(current);
    }
    Optional<String> chosen =
        services
            .targets()
            .chooseStandby(
                claim.node(),
                claim.driver(),
                claim.storageClass(),
                claim.parameters().standbyLabels());
    if (chosen.isEmpty()) {
      status.setStandbyNode(null);
      String why =
          "no node can hold the replica: none other than "
              + claim.node()
              + " runs driver "
              + claim.driver()
              + ", is schedulable and Ready, not fenced and not being evacuated"
              + (claim.parameters().standbyLabels().isEmpty()
                  ? ""
                  : " and has the labels " + claim.parameters().standbyLabels());
      replication.condition(ReplicationConditions.REPLICATING, false, "NoStandby", why);
      FailoverRecord failover = status.getLastFailover();
      if (failover != null
          && Conditions.find(status.getConditions(), ReplicationConditions.DEGRADED)
              .filter(c -> "True".equals(c.getStatus()) && "FailedOver".equals(c.getReason()))
              .isPresent()) {
        // what the failover lost stays said until a replica is made again
        why =
            MoveFollowUp.lost(
                    replication.names().claim(),
                    failover.getFromNode(),
                    failover.getToNode(),
                    failover.getDataLostAfter())
                + "; "
                + why;
        replication.condition(ReplicationConditions.DEGRADED, true, "FailedOver", why);
      } else {
        replication.condition(ReplicationConditions.DEGRADED, true, "NoStandby", why);
      }
      replication.message(why);
      return Optional.empty();
    }
    status.setStandbyNode(chosen.get());
    dropOldReplica(replication, claim, chosen.get());
    replication.normal(
        "StandbyChosen",
        "node "
            + chosen.get()
            + " holds the replica of PersistentVolumeClaim "
            + replication.names().claim()
            + (current == null ? "" : " (in place of node " + current + ")"));
    return chosen;
  }

  /**
   * The replica on a standby given up, where its node can still be asked: the next one is made
   * whole on the new standby. A fenced node's stays there (its driver cannot be reached).
   */
  private static void dropOldReplica(Replication replication, ReplicatedClaim claim, String now) {
    ReplicaPoint replica = replication.status().getReplica();
    ReplicationServices services = replication.services();
    if (replica == null
        || replica.getNode().equals(now)
        || services.fence().fenced(replica.getNode()).isPresent()) {
      return;
    }
    QuickAnswers.Asked<Boolean> dropped =
        QuickAnswers.ask(
            services.copier(),
            services.endpoints().on(claim.backend(), replica.getNode()),
            (copier, driver) ->
                copier.dropVolume(
                    driver,
                    replication.names().sync(replica.getSync()),
                    replica.getSnapshotHandle(),
                    QuickAnswers.QUICK));
    if (dropped.failure() != null) {
      replication.warning(
          "ReplicaLeft",
          "could not ask the driver on node "
              + replica.getNode()
              + " to delete the replica "
              + replica.getVolumeHandle()
              + " ("
              + dropped.failure().getDescription()
              + "); it stays in that node's data dir until deleted");
    }
    replication.status().setReplica(null);
  }
}
