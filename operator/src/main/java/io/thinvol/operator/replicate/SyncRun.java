package io.thinvol.operator.replicate;

import io.thinvol.addons.call.MoveCopier;
import io.thinvol.addons.call.MoveCopier.CopiedIn;
import io.thinvol.addons.resolve.DriverEndpoint;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * One sync's driver calls, chained without a reconcile thread: the volume enabled as the primary
 * (idempotent), its point-in-time snapshot on the primary's node, then the replica made of it on
 * the standby's (onto the previous replica, or whole). Every call is idempotent by the sync's name,
 * so a sync asked again after a restart answers what was made first.
 */
final class SyncRun {

  /**
   * The snapshot's deadline, which bounds the filesystem freeze where the data dir has no reflinks
   * (the driver thaws and fails the snapshot at its deadline).
   */
  static final Duration SNAPSHOT_BOUND = Duration.ofSeconds(10);

  /** A replica's copy may take this long (a first, whole copy of a large volume). */
  static final Duration COPY_LIMIT = Duration.ofMinutes(30);

  /** What a sync made: the primary's snapshot and the standby's replica of it. */
  record Result(String snapshotId, CopiedIn replica) {}

  /**
   * One sync to run.
   *
   * @param baseReplica the previous replica on the standby, null for a whole copy
   */
  record Plan(
      DriverEndpoint primary,
      DriverEndpoint standby,
      String name,
      String primaryVolume,
      String baseReplica,
      String namespace,
      String replication,
      String replicationId,
      Map<String, String> parameters) {}

  private SyncRun() {}

  static CompletableFuture<Result> start(MoveCopier copier, Plan plan) {
    return copier
        .role(
            plan.primary(),
            MoveCopier.Role.ENABLE,
            plan.primaryVolume(),
            plan.replicationId(),
            false,
            SNAPSHOT_BOUND)
        .thenCompose(
            enabled ->
                copier.snapshot(
                    plan.primary(),
                    new MoveCopier.SnapshotOf(plan.name(), plan.primaryVolume()),
                    SNAPSHOT_BOUND))
        .thenCompose(
            taken ->
                copier
                    .replicaIn(
                        plan.standby(),
                        new MoveCopier.ReplicaIn(
                            plan.name(),
                            taken.snapshotId(),
                            plan.baseReplica(),
                            plan.namespace(),
                            plan.replication(),
                            plan.replicationId(),
                            plan.parameters()),
                        COPY_LIMIT)
                    .thenApply(replica -> new Result(taken.snapshotId(), replica)));
  }
}
