package io.thinvol.driver.csi;

import io.grpc.stub.StreamObserver;
import io.thinvol.driver.core.CsiException;
import io.thinvol.driver.core.DeltaCopied;
import io.thinvol.driver.core.ReplicaCopies;
import io.thinvol.driver.core.VolumeManager;
import io.thinvol.driver.peer.copy.PeerPuller;
import io.thinvol.driver.store.ContentSource;
import io.thinvol.driver.store.SnapshotRecord;
import io.thinvol.driver.store.VolumeRecord;
import io.thinvol.peer.v1.CopyInRequest;
import io.thinvol.peer.v1.CopyInResponse;
import io.thinvol.peer.v1.DropSnapshotRequest;
import io.thinvol.peer.v1.DropSnapshotResponse;
import io.thinvol.peer.v1.DropVolumeRequest;
import io.thinvol.peer.v1.DropVolumeResponse;
import io.thinvol.peer.v1.MoveCopyGrpc;
import io.thinvol.peer.v1.SnapshotRequest;
import io.thinvol.peer.v1.SnapshotResponse;
import io.thinvol.peer.v1.SpaceRequest;
import io.thinvol.peer.v1.SpaceResponse;
import io.thinvol.peer.v1.SyncedRequest;
import io.thinvol.peer.v1.SyncedResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;

/**
 * The copy-in a VolumeMove's cut-over asks of the target node's driver, on the CSI-Addons TLS port
 * (whose interceptor admits the allowed ServiceAccounts, the operator's, and not the peers): a new
 * volume holding a snapshot of another node, pulled as the changes since the snapshot a volume of
 * this node was made from. It is a CreateVolume in all but its entry: idempotent by name, assembled
 * privately and published only once the whole result reads as the snapshot. The cut-over's snapshot
 * on the source node, a CreateSnapshot in all but its entry. And a volume's space, by which the
 * move follows its pre-copy.
 */
public final class MoveCopyService extends MoveCopyGrpc.MoveCopyImplBase {

  // The longest a copy may take when the caller sets no deadline.
  private static final Duration COPY_LIMIT = Duration.ofHours(2);

  private final VolumeManager volumes;

  public MoveCopyService(VolumeManager volumes) {
    this.volumes = volumes;
  }

  @Override
  public void copyIn(CopyInRequest request, StreamObserver<CopyInResponse> observer) {
    Rpc.unary("MoveCopy.CopyIn", request.getName(), observer, () -> copy(request));
  }

  private CopyInResponse copy(CopyInRequest request) {
    String name = Requests.name(request.getName(), "name");
    String snapshot = Requests.snapshotId(request.getSnapshotId(), "snapshot_id");
    if (!request.getReplicationName().isEmpty()) {
      return replica(request, name, snapshot);
    }
    // A whole copy is an ordinary cross-node restore, which the claim's provisioner asks for.
    Requests.requirePresent(request.getBaseVolumeId(), "base_volume_id");
    String base = Requests.volumeId(request.getBaseVolumeId());
    Requests.requirePresent(request.getClaimNamespace(), "claim_namespace");
    Requests.requirePresent(request.getClaimName(), "claim_name");
    // Read first: without reflinks the copy consumes its base.
    String baseSnapshot =
        volumes
            .catalog()
            .volume(base)
            .map(VolumeRecord::contentSource)
            .map(ContentSource::id)
            .orElse("");
    DeltaCopied made =
        volumes.createFromDelta(
            name,
            snapshot,
            base,
            Map.of(
                PeerPuller.CLAIM_NAMESPACE,
                request.getClaimNamespace(),
                PeerPuller.CLAIM_NAME,
                request.getClaimName()),
            Rpc.remaining(COPY_LIMIT));
    return CopyInResponse.newBuilder()
        .setVolumeId(made.volume().id())
        .setSizeBytes(made.volume().sizeBytes())
        .setBaseSnapshotId(baseSnapshot)
        .setDeltaBytes(made.receivedBytes())
        .build();
  }

  /** A replica of a VolumeReplication: the next from the previous one, or the first in full. */
  private CopyInResponse replica(CopyInRequest request, String name, String snapshot) {
    Requests.requirePresent(request.getReplicationNamespace(), "replication_namespace");
    String id = Requests.name(request.getReplicationId(), "replication_id");
    String base =
        request.getBaseVolumeId().isEmpty() ? null : Requests.volumeId(request.getBaseVolumeId());
    DeltaCopied made =
        volumes
            .replicas()
            .copy(
                new ReplicaCopies.Request(
                    name,
                    snapshot,
                    base,
                    id,
                    request.getReplicationNamespace(),
                    request.getReplicationName(),
                    request.getParametersMap(),
                    MutableParameters.ioMode(request.getParametersMap(), "parameters")
                        .orElse(MutableParameters.DEFAULT_IO_MODE)),
                Rpc.remaining(COPY_LIMIT));
    return CopyInResponse.newBuilder()
        .setVolumeId(made.volume().id())
        .setSizeBytes(made.volume().sizeBytes())
        .setBaseSnapshotId(
            base == null
                ? ""
                : volumes.catalog().volume(base).map(b -> b.contentSource().id()).orElse(""))
        .setDeltaBytes(made.receivedBytes())
        .build();
  }

  @Override
  public void synced(SyncedRequest request, StreamObserver<SyncedResponse> observer) {
    Rpc.unary("MoveCopy.Synced", request.getVolumeId(), observer, () -> synced(request));
  }

  private SyncedResponse synced(SyncedRequest request) {
    String volume = Requests.volumeId(request.getVolumeId());
    String snapshot = Requests.snapshotId(request.getSnapshotId(), "snapshot_id");
    if (!request.hasSyncTime()) {
      throw CsiException.invalidArgument("sync_time is required");
    }
    if (request.getSyncBytes() < 0) {
      throw CsiException.invalidArgument("sync_bytes must not be negative");
    }
    Instant time =
        Instant.ofEpochSecond(request.getSyncTime().getSeconds(), request.getSyncTime().getNanos());
    long millis =
        request.getSyncDuration().getSeconds() * 1000
            + request.getSyncDuration().getNanos() / 1_000_000;
    return SyncedResponse.newBuilder()
        .addAllDropped(
            volumes
                .roles()
                .synced(volume, snapshot, time.toString(), millis, request.getSyncBytes()))
        .build();
  }

  @Override
  public void snapshot(SnapshotRequest request, StreamObserver<SnapshotResponse> observer) {
    Rpc.unary("MoveCopy.Snapshot", request.getName(), observer, () -> snapshot(request));
  }

  private SnapshotResponse snapshot(SnapshotRequest request) {
    String name = Requests.name(request.getName(), "name");
    Requests.requirePresent(request.getSourceVolumeId(), "source_volume_id");
    String source = Requests.volumeId(request.getSourceVolumeId());
    SnapshotRecord taken = volumes.snapshots().create(name, source, Rpc.remaining(COPY_LIMIT));
    return SnapshotResponse.newBuilder()
        .setSnapshotId(taken.id())
        .setSizeBytes(taken.sizeBytes())
        .build();
  }

  @Override
  public void dropSnapshot(
      DropSnapshotRequest request, StreamObserver<DropSnapshotResponse> observer) {
    Rpc.unary("MoveCopy.DropSnapshot", request.getName(), observer, () -> drop(request));
  }

  private DropSnapshotResponse drop(DropSnapshotRequest request) {
    String name = Requests.name(request.getName(), "name");
    Requests.requirePresent(request.getSourceVolumeId(), "source_volume_id");
    String source = Requests.volumeId(request.getSourceVolumeId());
    return DropSnapshotResponse.newBuilder()
        .setDropped(volumes.snapshots().deleteByName(name, source))
        .build();
  }

  @Override
  public void dropVolume(DropVolumeRequest request, StreamObserver<DropVolumeResponse> observer) {
    Rpc.unary("MoveCopy.DropVolume", request.getName(), observer, () -> dropCopy(request));
  }

  private DropVolumeResponse dropCopy(DropVolumeRequest request) {
    String name = Requests.name(request.getName(), "name");
    String snapshot = Requests.snapshotId(request.getSnapshotId(), "snapshot_id");
    return DropVolumeResponse.newBuilder().setDropped(volumes.deleteCopy(name, snapshot)).build();
  }

  @Override
  public void space(SpaceRequest request, StreamObserver<SpaceResponse> observer) {
    Rpc.unary("MoveCopy.Space", request.getVolumeId(), observer, () -> space(request));
  }

  private SpaceResponse space(SpaceRequest request) {
    VolumeRecord volume = volumes.requireVolume(Requests.volumeId(request.getVolumeId()));
    return SpaceResponse.newBuilder()
        .setSizeBytes(volume.sizeBytes())
        .setAllocatedBytes(volumes.allocatedBytes(volume.id()))
        .build();
  }
}
