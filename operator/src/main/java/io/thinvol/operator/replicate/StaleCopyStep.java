package io.thinvol.operator.replicate;

import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.grpc.Status;
import io.thinvol.addons.call.MoveCopier;
import io.thinvol.api.v1alpha1.ReplicationState;
import io.thinvol.api.v1alpha1.StaleCopy;
import io.thinvol.api.v1alpha1.VolumeReplication;
import io.thinvol.api.v1alpha1.VolumeReplicationStatus;
import io.thinvol.operator.transfer.QuickAnswers;
import java.util.HashMap;
import java.util.Map;

/**
 * The copy a failover left on the failed node: when the node is back it is demoted first (its
 * driver never stages it from then on), then, if the replication's autoResync says so or
 * replicationState: resync asks, marked to resync and discarded (its PersistentVolume's policy set
 * to Delete: that node's provisioner deletes it); otherwise kept, and the replication is Degraded
 * until a person decides.
 */
final class StaleCopyStep {

  private StaleCopyStep() {}

  static void run(Replication replication, String backend) {
    VolumeReplicationStatus status = replication.status();
    StaleCopy stale = status.getStaleCopy();
    ReplicationServices services = replication.services();
    String node = stale.getNode();
    String where =
        "the stale copy of PersistentVolumeClaim "
            + replication.names().claim()
            + " on node "
            + node
            + " (PersistentVolume "
            + stale.getPersistentVolume()
            + ")";
    if (services.fence().fenced(node).isPresent() || !services.fence().up(node)) {
      return; // it is not back: nothing can reach the copy, and nothing can stage it
    }
    if (!Boolean.TRUE.equals(stale.getDemoted())) {
      QuickAnswers.Asked<Boolean> demoted = role(replication, backend, MoveCopier.Role.DEMOTE);
      if (demoted.failure() != null) {
        if (demoted.failure().getCode() == Status.Code.NOT_FOUND) {
          status.setStaleCopy(null); // deleted meanwhile: nothing is left to keep or discard
          return;
        }
        replication.message("demoting " + where + ": " + demoted.failure().getDescription());
        return;
      }
      stale.setDemoted(true);
      replication.normal(
          "StaleCopyDemoted",
          where
              + " is demoted: it may hold writes made after "
              + lostAfter(status)
              + ", and its node's driver never stages it");
    }
    VolumeReplication resource = replication.resource();
    boolean resync =
        Boolean.TRUE.equals(resource.getSpec().getAutoResync())
            || resource.getSpec().getReplicationState() == ReplicationState.resync;
    if (!resync) {
      String kept =
          where
              + " is kept, demoted: it holds what was written there after "
              + lostAfter(status)
              + "; set spec.replicationState: resync to discard it (docs/replication.md)";
      if (!kept.equals(conditionMessage(status))) {
        replication.warning("StaleCopyKept", kept);
      }
      replication.condition(ReplicationConditions.DEGRADED, true, "StaleCopyKept", kept);
      return;
    }
    QuickAnswers.Asked<Boolean> marked = role(replication, backend, MoveCopier.Role.RESYNC);
    if (marked.failure() != null && marked.failure().getCode() != Status.Code.NOT_FOUND) {
      replication.message("resyncing " + where + ": " + marked.failure().getDescription());
      return;
    }
    discard(replication, stale.getPersistentVolume());
    status.setStaleCopy(null);
    replication.normal(
        "StaleCopyDiscarded",
        where + " is discarded: its node's provisioner deletes it; the node may hold the replica");
  }

  /** The old PersistentVolume let go with Delete: its node's provisioner deletes the volume. */
  private static void discard(Replication replication, String persistentVolume) {
    Map<String, Object> annotations = new HashMap<>();
    annotations.put(VolumeReplication.STALE_COPY_OF, null);
    String patch =
        Serialization.asJson(
            Map.of(
                "metadata",
                Map.of("annotations", annotations),
                "spec",
                Map.of("persistentVolumeReclaimPolicy", "Delete")));
    var volume = replication.services().client().persistentVolumes().withName(persistentVolume);
    if (volume.get() != null) {
      volume.patch(PatchContext.of(PatchType.JSON_MERGE), patch);
    }
  }

  private static QuickAnswers.Asked<Boolean> role(
      Replication replication, String backend, MoveCopier.Role change) {
    ReplicationServices services = replication.services();
    StaleCopy stale = replication.status().getStaleCopy();
    return QuickAnswers.ask(
        services.copier(),
        services.endpoints().on(backend, stale.getNode()),
        (copier, driver) ->
            copier.role(
                driver,
                change,
                stale.getVolumeHandle(),
                replication.names().uid(),
                true,
                QuickAnswers.QUICK));
  }

  private static String lostAfter(VolumeReplicationStatus status) {
    return status.getLastFailover() == null
        ? "the last sync"
        : status.getLastFailover().getDataLostAfter();
  }

  private static String conditionMessage(VolumeReplicationStatus status) {
    return status.getConditions().stream()
        .filter(c -> c.getType().equals(ReplicationConditions.DEGRADED))
        .map(c -> c.getMessage())
        .findFirst()
        .orElse(null);
  }
}
