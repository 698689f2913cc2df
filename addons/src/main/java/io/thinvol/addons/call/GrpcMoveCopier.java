package io.thinvol.addons.call;

import com.google.common.util.concurrent.Futures;
import com.google.common.util.concurrent.ListenableFuture;
import com.google.common.util.concurrent.MoreExecutors;
import com.google.protobuf.Timestamp;
import csiaddons.replication.ControllerGrpc;
import io.thinvol.addons.resolve.DriverEndpoint;
import io.thinvol.peer.v1.CopyInRequest;
import io.thinvol.peer.v1.DropSnapshotRequest;
import io.thinvol.peer.v1.DropSnapshotResponse;
import io.thinvol.peer.v1.DropVolumeRequest;
import io.thinvol.peer.v1.DropVolumeResponse;
import io.thinvol.peer.v1.MoveCopyGrpc;
import io.thinvol.peer.v1.SnapshotRequest;
import io.thinvol.peer.v1.SpaceRequest;
import io.thinvol.peer.v1.SyncedRequest;
import io.thinvol.peer.v1.SyncedResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

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
    return call(
        target,
        timeout,
        stub -> stub.copyIn(copy),
        r ->
            new CopiedIn(
                r.getVolumeId(), r.getSizeBytes(), r.getBaseSnapshotId(), r.getDeltaBytes()));
  }

  @Override
  public CompletableFuture<Taken> snapshot(
      DriverEndpoint source, SnapshotOf request, Duration timeout) {
    SnapshotRequest snapshot =
        SnapshotRequest.newBuilder()
            .setName(request.name())
            .setSourceVolumeId(request.sourceVolumeId())
            .build();
    return call(
        source,
        timeout,
        stub -> stub.snapshot(snapshot),
        r -> new Taken(r.getSnapshotId(), r.getSizeBytes()));
  }

  @Override
  public CompletableFuture<Boolean> dropSnapshot(
      DriverEndpoint source, SnapshotOf request, Duration timeout) {
    DropSnapshotRequest drop =
        DropSnapshotRequest.newBuilder()
            .setName(request.name())
            .setSourceVolumeId(request.sourceVolumeId())
            .build();
    return call(source, timeout, stub -> stub.dropSnapshot(drop), DropSnapshotResponse::getDropped);
  }

  @Override
  public CompletableFuture<Boolean> dropVolume(
      DriverEndpoint target, String name, String snapshotId, Duration timeout) {
    DropVolumeRequest drop =
        DropVolumeRequest.newBuilder().setName(name).setSnapshotId(snapshotId).build();
    return call(target, timeout, stub -> stub.dropVolume(drop), DropVolumeResponse::getDropped);
  }

  @Override
  public CompletableFuture<VolumeSpace> space(
      DriverEndpoint node, String volumeId, Duration timeout) {
    return call(
        node,
        timeout,
        stub -> stub.space(SpaceRequest.newBuilder().setVolumeId(volumeId).build()),
        r -> new VolumeSpace(r.getSizeBytes(), r.getAllocatedBytes()));
  }

  @Override
  public CompletableFuture<CopiedIn> replicaIn(
      DriverEndpoint standby, ReplicaIn request, Duration timeout) {
    CopyInRequest.Builder copy =
        CopyInRequest.newBuilder()
            .setName(request.name())
            .setSnapshotId(request.snapshotId())
            .setReplicationNamespace(request.namespace())
            .setReplicationName(request.replication())
            .setReplicationId(request.replicationId())
            .putAllParameters(request.parameters());
    if (request.baseVolumeId() != null) {
      copy.setBaseVolumeId(request.baseVolumeId());
    }
    return call(
        standby,
        timeout,
        stub -> stub.copyIn(copy.build()),
        r ->
            new CopiedIn(
                r.getVolumeId(), r.getSizeBytes(), r.getBaseSnapshotId(), r.getDeltaBytes()));
  }

  @Override
  public CompletableFuture<List<String>> synced(
      DriverEndpoint node, Synced request, Duration timeout) {
    SyncedRequest synced =
        SyncedRequest.newBuilder()
            .setVolumeId(request.volumeId())
            .setSnapshotId(request.snapshotId())
            .setSyncTime(
                Timestamp.newBuilder()
                    .setSeconds(request.syncTime().getEpochSecond())
                    .setNanos(request.syncTime().getNano()))
            .setSyncDuration(
                com.google.protobuf.Duration.newBuilder()
                    .setSeconds(request.duration().getSeconds())
                    .setNanos(request.duration().getNano()))
            .setSyncBytes(request.bytes())
            .build();
    return call(node, timeout, stub -> stub.synced(synced), SyncedResponse::getDroppedList);
  }

  @Override
  public CompletableFuture<Boolean> role(
      DriverEndpoint node,
      Role change,
      String volumeId,
      String replicationId,
      boolean force,
      Duration timeout) {
    return calls.call(
        node,
        timeout,
        ControllerGrpc::newFutureStub,
        stub -> ReplicationRoleCalls.of(stub, change, volumeId, replicationId, force));
  }

  /** A unary MoveCopy call of {@code endpoint}, its answer mapped by {@code answer}. */
  private <R, T> CompletableFuture<T> call(
      DriverEndpoint endpoint,
      Duration timeout,
      Function<MoveCopyGrpc.MoveCopyFutureStub, ListenableFuture<R>> method,
      Function<R, T> answer) {
    return calls.call(
        endpoint,
        timeout,
        MoveCopyGrpc::newFutureStub,
        stub ->
            Futures.transform(method.apply(stub), answer::apply, MoreExecutors.directExecutor()));
  }
}
