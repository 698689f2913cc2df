package io.thinvol.driver.csi;

import com.google.protobuf.Duration;
import com.google.protobuf.Timestamp;
import csiaddons.replication.ControllerGrpc;
import csiaddons.replication.DemoteVolumeRequest;
import csiaddons.replication.DemoteVolumeResponse;
import csiaddons.replication.DisableVolumeReplicationRequest;
import csiaddons.replication.DisableVolumeReplicationResponse;
import csiaddons.replication.EnableVolumeReplicationRequest;
import csiaddons.replication.EnableVolumeReplicationResponse;
import csiaddons.replication.GetVolumeReplicationInfoRequest;
import csiaddons.replication.GetVolumeReplicationInfoResponse;
import csiaddons.replication.PromoteVolumeRequest;
import csiaddons.replication.PromoteVolumeResponse;
import csiaddons.replication.ReplicationSource;
import csiaddons.replication.ResyncVolumeRequest;
import csiaddons.replication.ResyncVolumeResponse;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.thinvol.driver.core.CsiException;
import io.thinvol.driver.core.VolumeRoles;
import io.thinvol.driver.store.ReplicationRecord;
import java.time.Instant;

/**
 * CSI-Addons replication: the roles of this node's volumes. thinvol's replication is driven by its
 * operator (a sync is a snapshot here and a copy on the standby, MoveCopy's calls); these calls set
 * what each copy may be used for: a primary is the one writable copy, a secondary is never staged.
 * Fields are checked first (INVALID_ARGUMENT), then the volume (NOT_FOUND), then its role
 * (FAILED_PRECONDITION); a call for a volume with another in flight is ABORTED.
 */
public final class ReplicationService extends ControllerGrpc.ControllerImplBase {

  private final VolumeRoles roles;

  public ReplicationService(VolumeRoles roles) {
    this.roles = roles;
  }

  @Override
  public void enableVolumeReplication(
      EnableVolumeReplicationRequest request,
      StreamObserver<EnableVolumeReplicationResponse> observer) {
    Rpc.unary(
        "EnableVolumeReplication",
        request.getVolumeId(),
        observer,
        () -> {
          requireVolumeSource(request.getReplicationSource(), request.getVolumeId());
          String id = Requests.name(request.getReplicationId(), "replication_id");
          roles.enable(Requests.volumeId(request.getVolumeId()), id);
          return EnableVolumeReplicationResponse.getDefaultInstance();
        });
  }

  @Override
  public void disableVolumeReplication(
      DisableVolumeReplicationRequest request,
      StreamObserver<DisableVolumeReplicationResponse> observer) {
    Rpc.unary(
        "DisableVolumeReplication",
        request.getVolumeId(),
        observer,
        () -> {
          requireVolumeSource(request.getReplicationSource(), request.getVolumeId());
          roles.disable(Requests.volumeId(request.getVolumeId()));
          return DisableVolumeReplicationResponse.getDefaultInstance();
        });
  }

  @Override
  public void promoteVolume(
      PromoteVolumeRequest request, StreamObserver<PromoteVolumeResponse> observer) {
    Rpc.unary(
        "PromoteVolume",
        request.getVolumeId(),
        observer,
        () -> {
          requireVolumeSource(request.getReplicationSource(), request.getVolumeId());
          roles.promote(Requests.volumeId(request.getVolumeId()), request.getForce());
          return PromoteVolumeResponse.getDefaultInstance();
        });
  }

  @Override
  public void demoteVolume(
      DemoteVolumeRequest request, StreamObserver<DemoteVolumeResponse> observer) {
    Rpc.unary(
        "DemoteVolume",
        request.getVolumeId(),
        observer,
        () -> {
          requireVolumeSource(request.getReplicationSource(), request.getVolumeId());
          roles.demote(Requests.volumeId(request.getVolumeId()), request.getForce());
          return DemoteVolumeResponse.getDefaultInstance();
        });
  }

  @Override
  public void resyncVolume(
      ResyncVolumeRequest request, StreamObserver<ResyncVolumeResponse> observer) {
    Rpc.unary(
        "ResyncVolume",
        request.getVolumeId(),
        observer,
        () -> {
          requireVolumeSource(request.getReplicationSource(), request.getVolumeId());
          boolean ready =
              roles.resync(Requests.volumeId(request.getVolumeId()), request.getForce());
          return ResyncVolumeResponse.newBuilder().setReady(ready).build();
        });
  }

  @Override
  public void getVolumeReplicationInfo(
      GetVolumeReplicationInfoRequest request,
      StreamObserver<GetVolumeReplicationInfoResponse> observer) {
    Rpc.unary(
        "GetVolumeReplicationInfo",
        request.getVolumeId(),
        observer,
        () -> {
          requireVolumeSource(request.getReplicationSource(), request.getVolumeId());
          ReplicationRecord synced = roles.info(Requests.volumeId(request.getVolumeId()));
          Instant time = Instant.parse(synced.syncTime());
          long millis = synced.syncDurationMillis();
          return GetVolumeReplicationInfoResponse.newBuilder()
              .setLastSyncTime(
                  Timestamp.newBuilder().setSeconds(time.getEpochSecond()).setNanos(time.getNano()))
              .setLastSyncDuration(
                  Duration.newBuilder()
                      .setSeconds(millis / 1000)
                      .setNanos((int) (millis % 1000) * 1_000_000))
              .setLastSyncBytes(synced.syncBytes())
              .build();
        });
  }

  /**
   * The volume is required; a replication source, when given, must be that volume: thinvol
   * replicates single volumes, not groups.
   */
  private static void requireVolumeSource(ReplicationSource source, String volumeId) {
    Requests.requirePresent(volumeId, "volume_id");
    switch (source.getTypeCase()) {
      case VOLUMEGROUP ->
          throw new CsiException(
              Status.Code.UNIMPLEMENTED,
              "thinvol replicates single volumes; a volume group cannot be replicated");
      case VOLUME -> {
        if (!source.getVolume().getVolumeId().equals(volumeId)) {
          throw CsiException.invalidArgument(
              "replication_source names volume %s, not volume_id %s",
              Requests.shown(source.getVolume().getVolumeId()), Requests.shown(volumeId));
        }
      }
      default -> {}
    }
  }
}
