package io.thinvol.driver.csi;

import csi.v1.BlockMetadataType;
import csi.v1.GetMetadataAllocatedRequest;
import csi.v1.GetMetadataAllocatedResponse;
import csi.v1.GetMetadataDeltaRequest;
import csi.v1.GetMetadataDeltaResponse;
import csi.v1.SnapshotMetadataGrpc;
import io.grpc.stub.StreamObserver;
import io.thinvol.driver.core.metadata.SnapshotMetadata;

/**
 * CSI SnapshotMetadata: the allocated ranges of a snapshot and the changed blocks between two, for
 * incremental backups (served on the CSI socket, to the external-snapshot-metadata sidecar). Ranges
 * are VARIABLE_LENGTH extents aligned to {@link SnapshotMetadata#BLOCK}.
 */
public final class SnapshotMetadataService extends SnapshotMetadataGrpc.SnapshotMetadataImplBase {

  private static final BlockMetadataType TYPE = BlockMetadataType.VARIABLE_LENGTH;

  private final SnapshotMetadata metadata;

  public SnapshotMetadataService(SnapshotMetadata metadata) {
    this.metadata = metadata;
  }

  @Override
  public void getMetadataAllocated(
      GetMetadataAllocatedRequest request, StreamObserver<GetMetadataAllocatedResponse> observer) {
    RangeStream.serve(
        "GetMetadataAllocated",
        request.getSnapshotId(),
        observer,
        request.getStartingOffset(),
        request.getMaxResults(),
        () ->
            metadata.allocated(
                Requests.snapshotId(request.getSnapshotId(), "snapshot_id"),
                request.getStartingOffset()),
        (capacity, ranges) ->
            GetMetadataAllocatedResponse.newBuilder()
                .setBlockMetadataType(TYPE)
                .setVolumeCapacityBytes(capacity)
                .addAllBlockMetadata(ranges)
                .build());
  }

  @Override
  public void getMetadataDelta(
      GetMetadataDeltaRequest request, StreamObserver<GetMetadataDeltaResponse> observer) {
    RangeStream.serve(
        "GetMetadataDelta",
        request.getTargetSnapshotId(),
        observer,
        request.getStartingOffset(),
        request.getMaxResults(),
        () -> {
          Requests.requirePresent(request.getBaseSnapshotId(), "base_snapshot_id");
          Requests.requirePresent(request.getTargetSnapshotId(), "target_snapshot_id");
          String base = Requests.snapshotId(request.getBaseSnapshotId(), "base_snapshot_id");
          String target = Requests.snapshotId(request.getTargetSnapshotId(), "target_snapshot_id");
          return metadata.delta(base, target, request.getStartingOffset());
        },
        (capacity, ranges) ->
            GetMetadataDeltaResponse.newBuilder()
                .setBlockMetadataType(TYPE)
                .setVolumeCapacityBytes(capacity)
                .addAllBlockMetadata(ranges)
                .build());
  }
}
