package io.thinvol.addons.call;

import com.google.common.util.concurrent.Futures;
import com.google.common.util.concurrent.MoreExecutors;
import io.thinvol.addons.resolve.DriverEndpoint;
import io.thinvol.peer.v1.CopyInRequest;
import io.thinvol.peer.v1.DropSnapshotRequest;
import io.thinvol.peer.v1.DropSnapshotResponse;
import io.thinvol.peer.v1.DropVolumeRequest;
import io.thinvol.peer.v1.DropVolumeResponse;
import io.thinvol.peer.v1.MoveCopyGrpc;
import io.thinvol.peer.v1.SnapshotRequest;
import io.thinvol.peer.v1.SpaceRequest;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * Calls driver pods' {@code thinvol.peer.v1.MoveCopy} service ({@link DriverCalls}: the channels
 * and token of the operator's other calls to drivers).
 */
public final class GrpcMoveCopier implements MoveCopier {

  private final DriverCalls calls;

  /** Over {@code calls}, which its owner closes. */
  public GrpcMoveCopier(DriverCalls calls) {
    this.calls = calls;
  }

  @Override
  public CompletableFuture<CopiedIn> copyIn(
      DriverEndpoint target, CopyIn request, Duration timeout) {
    CopyInRequest copy =
        CopyInRequest.newBuilder()
            .setName(request.name())
            .setSnapshotId(request.snapshotId())
            .setBaseVolumeId(request.baseVolumeId())
            .setClaimNamespace(request.claimNamespace())
            .setClaimName(request.claimName())
            .build();
    return calls.call(
        target,
        timeout,
        MoveCopyGrpc::newFutureStub,
        stub ->
            Futures.transform(
                stub.copyIn(copy),
                r ->
                    new CopiedIn(
                        r.getVolumeId(),
                        r.getSizeBytes(),
                        r.getBaseSnapshotId(),
                        r.getDeltaBytes()),
                MoreExecutors.directExecutor()));
  }

  @Override
  public CompletableFuture<Taken> snapshot(
      DriverEndpoint source, SnapshotOf request, Duration timeout) {
    SnapshotRequest snapshot =
        SnapshotRequest.newBuilder()
            .setName(request.name())
            .setSourceVolumeId(request.sourceVolumeId())
            .build();
    return calls.call(
        source,
        timeout,
        MoveCopyGrpc::newFutureStub,
        stub ->
            Futures.transform(
                stub.snapshot(snapshot),
                r -> new Taken(r.getSnapshotId(), r.getSizeBytes()),
                MoreExecutors.directExecutor()));
  }

  @Override
  public CompletableFuture<Boolean> dropSnapshot(
      DriverEndpoint source, SnapshotOf request, Duration timeout) {
    DropSnapshotRequest drop =
        DropSnapshotRequest.newBuilder()
            .setName(request.name())
            .setSourceVolumeId(request.sourceVolumeId())
            .build();
    return calls.call(
        source,
        timeout,
        MoveCopyGrpc::newFutureStub,
        stub ->
            Futures.transform(
                stub.dropSnapshot(drop),
                DropSnapshotResponse::getDropped,
                MoreExecutors.directExecutor()));
  }

  @Override
  public CompletableFuture<Boolean> dropVolume(
      DriverEndpoint target, String name, String snapshotId, Duration timeout) {
    DropVolumeRequest drop =
        DropVolumeRequest.newBuilder().setName(name).setSnapshotId(snapshotId).build();
    return calls.call(
        target,
        timeout,
        MoveCopyGrpc::newFutureStub,
        stub ->
            Futures.transform(
                stub.dropVolume(drop),
                DropVolumeResponse::getDropped,
                MoreExecutors.directExecutor()));
  }

  @Override
  public CompletableFuture<VolumeSpace> space(
      DriverEndpoint node, String volumeId, Duration timeout) {
    return calls.call(
        node,
        timeout,
        MoveCopyGrpc::newFutureStub,
        stub ->
            Futures.transform(
                stub.space(SpaceRequest.newBuilder().setVolumeId(volumeId).build()),
                r -> new VolumeSpace(r.getSizeBytes(), r.getAllocatedBytes()),
                MoreExecutors.directExecutor()));
  }
}
