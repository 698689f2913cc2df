package io.thinvol.addons.call;

import io.thinvol.addons.resolve.DriverEndpoint;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Calls a driver pod's {@code thinvol.peer.v1.MoveCopy} service for a VolumeMove or a
 * VolumeReplication's sync, and its CSI-Addons {@code replication.Controller} for the roles of
 * replicated volumes. The futures fail with a gRPC {@link io.grpc.StatusRuntimeException} when the
 * call does.
 */
public interface MoveCopier {

  /** What a driver holds of one volume on its node's disk. */
  record VolumeSpace(long sizeBytes, long allocatedBytes) {}

  /**
   * A copy-in asked of the target node's driver.
   *
   * @param name the new volume's name; a repeat with the same name answers the volume made first
   * @param snapshotId the cut-over snapshot, held on the source node
   * @param baseVolumeId the pre-copy on the target node
   * @param claimNamespace with {@code claimName}: the claim whose data source is the snapshot
   */
  record CopyIn(
      String name,
      String snapshotId,
      String baseVolumeId,
      String claimNamespace,
      String claimName) {}

  /**
   * @param deltaBytes bytes of changed blocks that crossed the network
   */
  record CopiedIn(String volumeId, long sizeBytes, String baseSnapshotId, long deltaBytes) {}

  CompletableFuture<CopiedIn> copyIn(DriverEndpoint target, CopyIn request, Duration timeout);

  /**
   * A snapshot asked of the source node's driver: the cut-over's, taken once the claim is gone.
   *
   * @param name a repeat with the same name answers the snapshot taken first
   */
  record SnapshotOf(String name, String sourceVolumeId) {}

  /** The snapshot's id on the source node and its source volume's size. */
  record Taken(String snapshotId, long sizeBytes) {}

  CompletableFuture<Taken> snapshot(DriverEndpoint source, SnapshotOf request, Duration timeout);

  /** Deletes the snapshot {@link #snapshot} took under that name, if any: whether there was one. */
  CompletableFuture<Boolean> dropSnapshot(
      DriverEndpoint source, SnapshotOf request, Duration timeout);

  /**
   * Deletes the volume {@link #copyIn} made under {@code name} from {@code snapshotId}, if any:
   * whether there was one. ABORTED while a copy of that name runs.
   */
  CompletableFuture<Boolean> dropVolume(
      DriverEndpoint target, String name, String snapshotId, Duration timeout);

  /** The volume's size and allocated bytes on the driver's node (NOT_FOUND when it holds none). */
  CompletableFuture<VolumeSpace> space(DriverEndpoint node, String volumeId, Duration timeout);

  /**
   * A replica asked of the standby's driver: the next one of a replication, onto the previous
   * replica, or the first in full.
   *
   * @param name the new volume's name; a repeat answers the volume made first
   * @param snapshotId the sync snapshot, on the primary's node
   * @param baseVolumeId the previous replica on the standby, or null for a whole copy
   * @param namespace with {@code replication} and {@code replicationId} (its uid): the
   *     VolumeReplication entitled to the snapshot
   * @param parameters a whole copy's StorageClass parameters
   */
  record ReplicaIn(
      String name,
      String snapshotId,
      String baseVolumeId,
      String namespace,
      String replication,
      String replicationId,
      Map<String, String> parameters) {}

  CompletableFuture<CopiedIn> replicaIn(
      DriverEndpoint standby, ReplicaIn request, Duration timeout);

  /**
   * The sync point moved to {@code snapshotId}, told to the primary's driver (for its volume) or to
   * the standby's (for the new replica): each deletes its older one. Answers what it deleted.
   */
  record Synced(
      String volumeId, String snapshotId, Instant syncTime, Duration duration, long bytes) {}

  CompletableFuture<List<String>> synced(DriverEndpoint node, Synced request, Duration timeout);

  /** A change of a replicated volume's role (CSI-Addons' replication.Controller). */
  enum Role {
    ENABLE,
    DISABLE,
    PROMOTE,
    DEMOTE,
    RESYNC
  }

  /**
   * Changes the role of {@code volumeId} on the driver's node; answers ResyncVolume's {@code ready}
   * (true for the others).
   */
  CompletableFuture<Boolean> role(
      DriverEndpoint node,
      Role change,
      String volumeId,
      String replicationId,
      boolean force,
      Duration timeout);
}
