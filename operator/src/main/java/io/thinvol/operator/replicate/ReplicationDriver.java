package io.thinvol.operator.replicate;

import io.thinvol.api.v1alpha1.ReplicaState;
import io.thinvol.api.v1alpha1.ReplicationState;
import io.thinvol.api.v1alpha1.VolumeReplicationStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Takes a replication as far as it can go now, in this order because each step needs the one
 * before: a failover's or switchover's move followed to its end; the replication validated; a
 * failover when the claim's node is fenced, or its NotReady said; the stale copy of an earlier
 * failover dealt with; the state asked (a switchover, a resync); the standby; the periodic sync.
 */
final class ReplicationDriver {

  private static final Logger log = LoggerFactory.getLogger(ReplicationDriver.class);

  /** A replication that cannot run now looks again this often. */
  static final Duration RECHECK = Duration.ofSeconds(30);

  private ReplicationDriver() {}

  /** When to look again; what the steps changed is saved. */
  static Duration advance(Replication replication) {
    Duration wait = steps(replication);
    replication.save();
    return wait;
  }

  private static Duration steps(Replication replication) {
    VolumeReplicationStatus status = replication.status();
    if (status.getVolumeMove() != null) {
      Duration wait = MoveFollowUp.run(replication);
      if (wait != null) {
        return wait;
      }
    }
    ReplicatedClaim claim;
    try {
      claim = ReplicationValidation.check(replication);
    } catch (ReplicationFailure failure) {
      log.info("{}: {}", failure.reason(), failure.getMessage());
      replication.condition(
          ReplicationConditions.VALIDATED, false, failure.reason(), failure.getMessage());
      replication.condition(
          ReplicationConditions.DEGRADED, true, failure.reason(), failure.getMessage());
      replication.condition(
          ReplicationConditions.REPLICATING, false, failure.reason(), failure.getMessage());
      if (status.getState() == null) {
        status.setState(ReplicaState.Unknown);
      }
      replication.message(failure.getMessage());
      replication.save();
      replication
          .services()
          .events()
          .recurringWarning(replication.resource(), failure.reason(), failure.getMessage());
      return RECHECK;
    }
    replication.condition(
        ReplicationConditions.VALIDATED,
        true,
        "PrerequisiteMet",
        "PersistentVolumeClaim "
            + replication.names().claim()
            + " is bound to a volume of "
            + claim.driver()
            + " on node "
            + claim.node());
    status.setPrimaryNode(claim.node());
    if (status.getState() == null || status.getState() == ReplicaState.Unknown) {
      status.setState(ReplicaState.Primary);
    }
    Optional<String> fenced = replication.services().fence().fenced(claim.node());
    if (fenced.isPresent()) {
      return FailoverStep.run(replication, claim, fenced.get());
    }
    PrimaryReadiness.report(replication, claim);
    if (status.getStaleCopy() != null) {
      StaleCopyStep.run(replication, claim.backend());
    }
    ReplicationState asked = replication.resource().getSpec().getReplicationState();
    if (asked == ReplicationState.resync
        && !Long.valueOf(replication.generation()).equals(status.getResyncedGeneration())
        && !SyncStep.inProgress(status)) {
      status.setReplica(null); // the next sync is a whole copy
      status.setResyncedGeneration(replication.generation());
      replication.normal(
          "ResyncRequested", "the standby's replica is replaced by a whole new copy");
    }
    if (asked == ReplicationState.primary && status.getState() == ReplicaState.Secondary) {
      status.setState(ReplicaState.Primary); // the new layout accepted; no data moves
    }
    replication
        .services()
        .metrics()
        .known(
            replication.names(),
            claim.parameters().interval(),
            Instant.parse(
                status.getLastSyncTime() != null
                    ? status.getLastSyncTime()
                    : replication.resource().getMetadata().getCreationTimestamp()),
            degraded(replication));
    Optional<String> standby = StandbyStep.ensure(replication, claim);
    if (standby.isEmpty()) {
      replication.save();
      return RECHECK;
    }
    if (asked == ReplicationState.secondary
        && status.getState() != ReplicaState.Secondary
        && !SwitchoverStep.failedAtThisGeneration(replication)) {
      return SwitchoverStep.run(replication, claim, standby.get());
    }
    return SyncStep.run(replication, claim, standby.get());
  }

  private static boolean degraded(Replication replication) {
    return replication.status().getConditions().stream()
        .anyMatch(
            c ->
                c.getType().equals(ReplicationConditions.DEGRADED) && "True".equals(c.getStatus()));
  }
}
