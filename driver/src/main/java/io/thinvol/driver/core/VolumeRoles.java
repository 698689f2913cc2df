package io.thinvol.driver.core;

import io.thinvol.driver.host.HostTools;
import io.thinvol.driver.store.Catalog;
import io.thinvol.driver.store.DataLayout;
import io.thinvol.driver.store.ReplicaRole;
import io.thinvol.driver.store.ReplicationRecord;
import io.thinvol.driver.store.SnapshotRecord;
import io.thinvol.driver.store.VolumeRecord;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A volume's role in a replication, kept in its {@code meta.json}: the primary (the one writable
 * copy), or a secondary (a replica, or a former primary demoted), which is never staged. Every
 * change holds the volume's lock (a second call for it is ABORTED) and is written durably before it
 * is answered; every call is idempotent.
 */
public final class VolumeRoles {

  private static final Logger log = LoggerFactory.getLogger(VolumeRoles.class);

  private final String nodeId;
  private final DataLayout layout;
  private final Catalog catalog;
  private final HostTools host;
  private final OperationLocks locks;
  private final VolumeManager volumes;

  VolumeRoles(
      String nodeId,
      DataLayout layout,
      Catalog catalog,
      HostTools host,
      OperationLocks locks,
      VolumeManager volumes) {
    this.nodeId = nodeId;
    this.layout = layout;
    this.catalog = catalog;
    this.host = host;
    this.locks = locks;
    this.volumes = volumes;
  }

  /** Makes the volume the primary of replication {@code id}. */
  public void enable(String volumeId, String id) {
    change(
        volumeId,
        volume -> {
          ReplicationRecord now = volume.replication();
          if (now == null) {
            return ReplicationRecord.primary(id);
          }
          if (now.secondary()) {
            throw CsiException.failedPrecondition(
                "volume %s is a secondary of replication %s on node %s; promote it instead",
                volumeId, now.id(), nodeId);
          }
          if (!now.id().equals(id)) {
            throw CsiException.failedPrecondition(
                "volume %s is the primary of replication %s already; disable that one first",
                volumeId, now.id());
          }
          return now;
        });
  }

  /** Stops replicating a primary: its sync snapshot goes. A secondary is refused. */
  public void disable(String volumeId) {
    change(
        volumeId,
        volume -> {
          ReplicationRecord now = volume.replication();
          if (now == null) {
            return null;
          }
          if (now.secondary()) {
            throw CsiException.failedPrecondition(
                "volume %s is a secondary of replication %s: it would become writable beside its"
                    + " primary; promote it or delete it instead",
                volumeId, now.id());
          }
          dropSnapshot(now.syncSnapshotId());
          return null;
        });
  }

  /**
   * Makes a secondary the primary; a demoted former primary, or one marked to resync, needs force.
   */
  public void promote(String volumeId, boolean force) {
    change(
        volumeId,
        volume -> {
          ReplicationRecord now = replicated(volume);
          if (!now.secondary()) {
            return now;
          }
          if ((now.stale() || now.resync()) && !force) {
            throw CsiException.failedPrecondition(
                "volume %s is %s, not an intact replica; promote it with force if you mean it",
                volumeId, now.stale() ? "a demoted former primary" : "marked to be resynced");
          }
          return new ReplicationRecord(
              now.id(), ReplicaRole.PRIMARY, false, false, null, null, 0, 0);
        });
  }

  /**
   * Makes the volume a secondary. A former primary is marked stale: it may hold writes no replica
   * has. A staged one only with force (its node's kubelet unstages it; it cannot be staged again).
   */
  public void demote(String volumeId, boolean force) {
    change(
        volumeId,
        volume -> {
          ReplicationRecord now = replicated(volume);
          if (now.secondary()) {
            return now;
          }
          if (!force && host.loops().find(layout.volumeImage(volumeId)).isPresent()) {
            throw CsiException.failedPrecondition(
                "volume %s is staged on node %s; unstage it first, or demote it with force",
                volumeId, nodeId);
          }
          dropSnapshot(now.syncSnapshotId());
          return now.withRole(ReplicaRole.SECONDARY, true);
        });
  }

  /**
   * Marks a secondary to be replaced by a fresh replica: always one that is stale, an intact
   * replica only with force. Answers whether it is ready to use as it is (an intact replica).
   */
  public boolean resync(String volumeId, boolean force) {
    VolumeRecord changed =
        change(
            volumeId,
            volume -> {
              ReplicationRecord now = replicated(volume);
              if (!now.secondary()) {
                throw CsiException.failedPrecondition(
                    "volume %s is the primary of replication %s, not demoted: demote it first",
                    volumeId, now.id());
              }
              return now.stale() || force ? now.withResync() : now;
            });
    return !changed.replication().stale() && !changed.replication().resync();
  }

  /** The primary's last sync point; NOT_FOUND before its first. */
  public ReplicationRecord info(String volumeId) {
    ReplicationRecord now = replicated(volumes.requireVolume(volumeId));
    if (now.secondary()) {
      throw CsiException.failedPrecondition(
          "volume %s is a secondary of replication %s, not the primary", volumeId, now.id());
    }
    if (now.syncTime() == null) {
      throw CsiException.notFound(
          "volume %s has not been synced yet in replication %s", volumeId, now.id());
    }
    return now;
  }

  /**
   * The sync point moved to {@code snapshotId}: recorded on a primary, whose previous sync snapshot
   * goes; on the replica holding it, the older intact replicas of the same replication go.
   *
   * @return the ids of the snapshots or volumes deleted
   */
  public List<String> synced(
      String volumeId, String snapshotId, String time, long durationMillis, long bytes) {
    List<String> dropped = new ArrayList<>();
    VolumeRecord changed =
        change(
            volumeId,
            volume -> {
              ReplicationRecord now = replicated(volume);
              if (now.secondary()) {
                if (!snapshotId.equals(now.syncSnapshotId())) {
                  throw CsiException.failedPrecondition(
                      "replica %s holds sync point %s, not %s",
                      volumeId, now.syncSnapshotId(), snapshotId);
                }
              } else {
                requireSnapshotOf(volumeId, snapshotId);
                if (now.syncSnapshotId() != null && !now.syncSnapshotId().equals(snapshotId)) {
                  dropSnapshot(now.syncSnapshotId());
                  dropped.add(now.syncSnapshotId());
                }
              }
              return now.synced(snapshotId, time, durationMillis, bytes);
            });
    if (changed.secondary()) {
      for (VolumeRecord older : catalog.volumes()) {
        if (!older.id().equals(volumeId) && olderReplica(older, changed.replication().id())) {
          volumes.delete(older.id());
          dropped.add(older.id());
        }
      }
    }
    if (!dropped.isEmpty()) {
      log.info("sync point {} of volume {}: dropped {}", snapshotId, volumeId, dropped);
    }
    return dropped;
  }

  private static boolean olderReplica(VolumeRecord volume, String replicationId) {
    ReplicationRecord other = volume.replication();
    return other != null && other.secondary() && !other.stale() && other.id().equals(replicationId);
  }

  private void requireSnapshotOf(String volumeId, String snapshotId) {
    SnapshotRecord snapshot =
        catalog
            .snapshot(snapshotId)
            .orElseThrow(
                () ->
                    CsiException.failedPrecondition(
                        "snapshot %s does not exist on node %s: it is no sync point of volume %s",
                        snapshotId, nodeId, volumeId));
    if (!snapshot.sourceVolumeId().equals(volumeId)) {
      throw CsiException.failedPrecondition(
          "snapshot %s is of volume %s, not of %s",
          snapshotId, snapshot.sourceVolumeId(), volumeId);
    }
  }

  private void dropSnapshot(String snapshotId) {
    if (snapshotId != null && catalog.snapshot(snapshotId).isPresent()) {
      volumes.snapshots().delete(snapshotId);
    }
  }

  private ReplicationRecord replicated(VolumeRecord volume) {
    if (volume.replication() == null) {
      throw CsiException.failedPrecondition(
          "volume %s is not replicated (EnableVolumeReplication first)", volume.id());
    }
    return volume.replication();
  }

  /**
   * Applies {@code change} to the volume's replication under its lock and writes the result when it
   * differs; answers the volume as it is now.
   */
  private VolumeRecord change(String volumeId, Function<VolumeRecord, ReplicationRecord> change) {
    try (OperationLocks.Held held = locks.tryAcquire(volumeId, "volume " + volumeId)) {
      VolumeRecord volume = volumes.requireVolume(volumeId);
      ReplicationRecord next = change.apply(volume);
      if (java.util.Objects.equals(next, volume.replication())) {
        return volume;
      }
      VolumeRecord changed = volume.withReplication(next);
      catalog.update(changed);
      log.info("volume {}: replication {} -> {}", volumeId, describe(volume), describe(changed));
      return changed;
    } catch (IOException e) {
      throw CsiException.internal(
          "cannot record the replication of volume " + volumeId + ": " + e.getMessage(), e);
    }
  }

  private static String describe(VolumeRecord volume) {
    ReplicationRecord r = volume.replication();
    return r == null
        ? "none"
        : r.role() + (r.stale() ? " (stale)" : "") + (r.resync() ? " (to resync)" : "");
  }
}
