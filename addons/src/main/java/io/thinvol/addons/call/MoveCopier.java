package io.thinvol.addons.call;

import io.thinvol.addons.resolve.DriverEndpoint;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * Calls a driver pod's {@code thinvol.peer.v1.MoveCopy} service for a VolumeMove. The futures fail
 * with a gRPC {@link io.grpc.StatusRuntimeException} when the call does.
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
}
