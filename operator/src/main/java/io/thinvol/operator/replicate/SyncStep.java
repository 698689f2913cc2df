package io.thinvol.operator.replicate;

import io.grpc.Status;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.thinvol.addons.call.MoveCopier;
import io.thinvol.addons.resolve.DriverEndpoint;
import io.thinvol.api.Durations;
import io.thinvol.api.v1alpha1.ReplicaPoint;
import io.thinvol.api.v1alpha1.ReplicaState;
import io.thinvol.api.v1alpha1.VolumeReplicationStatus;
import io.thinvol.operator.transfer.QuickAnswers;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * The periodic sync: begun when due (its number and start time saved first, so that an operator
 * restarted meanwhile asks the same sync again and records the time it began), run without a
 * reconcile thread ({@link SyncRun}), recorded in the status once the replica exists, then told to
 * both drivers ({@link SyncAcknowledgement}). A failed sync's snapshot is dropped before the next
 * begins; if it cannot be, the next try asks the same sync again.
 */
final class SyncStep {

  /** A sync's end wakes the replication; this is the fallback. */
  static final Duration POLL = Duration.ofSeconds(30);

  /** After a failure, the next try. */
  static final Duration RETRY = Duration.ofSeconds(30);

  private SyncStep() {}

  /**
   * @return when to look again
   */
  static Duration run(Replication replication, ReplicatedClaim claim, String standby) {
    VolumeReplicationStatus status = replication.status();
    ReplicaPoint replica = status.getReplica();
    if (replica != null
        && !claim.handle().equals(replica.getSourceVolumeHandle())
        && !inProgress(status)) {
      // the claim is on another volume (moved by someone else): its next replica is whole
      status.setReplica(null);
      replica = null;
    }
    if (replica != null && !Boolean.TRUE.equals(replica.getAcknowledged())) {
      if (!SyncAcknowledgement.run(replication, claim)) {
        replication.save();
        return RETRY;
      }
      replication.save();
    }
    if (!inProgress(status)) {
      Instant due = nextDue(status, claim.parameters().interval());
      if (replication.now().isBefore(due)) {
        return Duration.between(replication.now(), due);
      }
      status.setLastSyncAttempt(attempt(status) + 1);
      status.setLastStartTime(replication.now().toString());
      if (base(status, standby) == null) {
        replication.condition(
            ReplicationConditions.RESYNCING,
            true,
            "CopyingInFull",
            "copying the whole volume to node " + standby + " (a first copy)");
      }
      replication.save(); // the sync's number and start known before anything is asked
    }
    return resume(replication, claim, standby);
  }

  /** A sync begun and not ended (by this process, or by one that stopped). */
  static boolean inProgress(VolumeReplicationStatus status) {
    return status.getLastStartTime() != null
        && (status.getLastCompletionTime() == null
            || Instant.parse(status.getLastStartTime())
                .isAfter(Instant.parse(status.getLastCompletionTime())));
  }

  private static Duration resume(Replication replication, ReplicatedClaim claim, String standby) {
    VolumeReplicationStatus status = replication.status();
    ReplicationServices services = replication.services();
    long attempt = attempt(status);
    Optional<DriverEndpoint> primary = services.endpoints().on(claim.backend(), claim.node());
    Optional<DriverEndpoint> target = services.endpoints().on(claim.backend(), standby);
    if (primary.isEmpty() || target.isEmpty()) {
      replication.message(
          "sync "
              + attempt
              + " waits for a ready driver pod on node "
              + (primary.isEmpty() ? claim.node() : standby));
      replication.save();
      return RETRY;
    }
    ReplicationNames names = replication.names();
    SyncRun.Plan plan =
        new SyncRun.Plan(
            primary.get(),
            target.get(),
            names.sync(attempt),
            claim.handle(),
            base(status, standby),
            names.namespace(),
            names.name(),
            names.uid(),
            claim.storageClassParameters());
    String key = names.calls() + "sync-" + attempt + "/";
    Optional<CompletableFuture<SyncRun.Result>> ended =
        services
            .calls()
            .call(
                ResourceID.fromResource(replication.resource()),
                key,
                () -> SyncRun.start(services.copier(), plan));
    if (ended.isEmpty()) {
      replication.message(
          "sync "
              + attempt
              + ": copying "
              + (plan.baseReplica() == null ? "the whole volume" : "the blocks changed since")
              + " to node "
              + standby
              + " since "
              + status.getLastStartTime());
      replication.save();
      return POLL;
    }
    try {
      SyncResults.recorded(replication, claim, standby, ended.get().join());
    } catch (CompletionException e) {
      return failed(replication, claim, standby, Status.fromThrowable(e.getCause()));
    } finally {
      services.calls().forget(key);
    }
    if (SyncAcknowledgement.run(replication, claim)) {
      replication.save();
    }
    return claim.parameters().interval();
  }

  private static Duration failed(
      Replication replication, ReplicatedClaim claim, String standby, Status failure) {
    VolumeReplicationStatus status = replication.status();
    long attempt = attempt(status);
    String why =
        "sync "
            + attempt
            + " to node "
            + standby
            + " failed: "
            + failure.getCode()
            + " "
            + failure.getDescription();
    ReplicationServices services = replication.services();
    QuickAnswers.Asked<Boolean> dropped =
        QuickAnswers.ask(
            services.copier(),
            services.endpoints().on(claim.backend(), claim.node()),
            (copier, driver) ->
                copier.dropSnapshot(
                    driver,
                    new MoveCopier.SnapshotOf(replication.names().sync(attempt), claim.handle()),
                    QuickAnswers.QUICK));
    if (dropped.failure() == null) {
      status.setLastCompletionTime(replication.now().toString()); // this sync is over
    }
    replication.condition(ReplicationConditions.REPLICATING, false, "SyncFailed", why);
    if (lagging(status, claim.parameters().interval(), replication.now())) {
      replication.condition(
          ReplicationConditions.DEGRADED,
          true,
          "SyncFailing",
          why
              + "; the standby holds "
              + (status.getLastSyncTime() == null
                  ? "no copy yet"
                  : "the data of " + status.getLastSyncTime()));
    }
    replication.message(why + "; trying again in " + Durations.text(RETRY));
    services.events().recurringWarning(replication.resource(), "SyncFailed", why);
    replication.save();
    return RETRY;
  }

  /** More than two intervals since the last successful sync (or since the first try). */
  static boolean lagging(VolumeReplicationStatus status, Duration interval, Instant now) {
    String since =
        status.getLastSyncTime() != null ? status.getLastSyncTime() : status.getLastStartTime();
    return since == null || Instant.parse(since).plus(interval.multipliedBy(2)).isBefore(now);
  }

  /** The previous replica, if it is on the standby and can be the next one's base. */
  static String base(VolumeReplicationStatus status, String standby) {
    ReplicaPoint replica = status.getReplica();
    return replica != null && standby.equals(replica.getNode()) ? replica.getVolumeHandle() : null;
  }

  private static long attempt(VolumeReplicationStatus status) {
    return status.getLastSyncAttempt() == null ? 0 : status.getLastSyncAttempt();
  }

  /**
   * An interval after the last sync began; at once when there is no replica (a first sync, or the
   * first after a failover, a switchover or a new standby); a failed one is tried again sooner.
   */
  private static Instant nextDue(VolumeReplicationStatus status, Duration interval) {
    if (status.getLastStartTime() == null) {
      return Instant.EPOCH;
    }
    boolean lastFailed = !status.getLastStartTime().equals(status.getLastSyncTime());
    if (lastFailed) {
      return Instant.parse(status.getLastCompletionTime()).plus(RETRY);
    }
    return status.getReplica() == null
        ? Instant.EPOCH
        : Instant.parse(status.getLastStartTime()).plus(interval);
  }

  /** The state a running replication shows. */
  static ReplicaState state(VolumeReplicationStatus status) {
    return status.getState() == null || status.getState() == ReplicaState.Unknown
        ? ReplicaState.Primary
        : status.getState();
  }
}
