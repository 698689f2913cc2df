package io.thinvol.driver.csi;

import csi.v1.ControllerExpandVolumeRequest;
import csi.v1.ControllerExpandVolumeResponse;
import csi.v1.ControllerGetCapabilitiesRequest;
import csi.v1.ControllerGetCapabilitiesResponse;
import csi.v1.ControllerGetVolumeRequest;
import csi.v1.ControllerGetVolumeResponse;
import csi.v1.ControllerGrpc;
import csi.v1.ControllerModifyVolumeRequest;
import csi.v1.ControllerModifyVolumeResponse;
import csi.v1.CreateSnapshotRequest;
import csi.v1.CreateSnapshotResponse;
import csi.v1.CreateVolumeRequest;
import csi.v1.CreateVolumeResponse;
import csi.v1.DeleteSnapshotRequest;
import csi.v1.DeleteSnapshotResponse;
import csi.v1.DeleteVolumeRequest;
import csi.v1.DeleteVolumeResponse;
import csi.v1.GetCapacityRequest;
import csi.v1.GetCapacityResponse;
import csi.v1.GetSnapshotRequest;
import csi.v1.GetSnapshotResponse;
import csi.v1.ListSnapshotsRequest;
import csi.v1.ListSnapshotsResponse;
import csi.v1.ListVolumesRequest;
import csi.v1.ListVolumesResponse;
import csi.v1.ValidateVolumeCapabilitiesRequest;
import csi.v1.ValidateVolumeCapabilitiesResponse;
import io.grpc.stub.StreamObserver;
import io.thinvol.driver.config.DriverConfig;
import io.thinvol.driver.core.CsiException;
import io.thinvol.driver.core.VolumeHealth;
import io.thinvol.driver.core.VolumeManager;
import io.thinvol.driver.peer.ModifyForwarding;
import io.thinvol.driver.store.VolumeRecord;
import java.time.Duration;

/**
 * CSI Controller for the volumes of this node. ControllerPublish/Unpublish are not offered
 * (attachRequired is false) and answer UNIMPLEMENTED.
 */
public final class ControllerService extends ControllerGrpc.ControllerImplBase {

  // The longest a clone's copy may take when the caller sets no deadline.
  private static final Duration COPY_LIMIT = Duration.ofHours(2);

  private final DriverConfig config;
  private final VolumeManager volumes;
  private final ControllerSnapshots snapshots;
  private final VolumeQueries queries;
  private final VolumeModification modification;

  public ControllerService(DriverConfig config, VolumeManager volumes, VolumeHealth health) {
    this(config, volumes, health, null);
  }

  /**
   * @param forwarding sends ControllerModifyVolume of another node's volume there; null: none
   */
  public ControllerService(
      DriverConfig config,
      VolumeManager volumes,
      VolumeHealth health,
      ModifyForwarding forwarding) {
    this.config = config;
    this.volumes = volumes;
    this.snapshots = new ControllerSnapshots(volumes);
    this.queries = new VolumeQueries(config, volumes, health);
    this.modification = new VolumeModification(volumes, forwarding);
  }

  @Override
  public void createVolume(
      CreateVolumeRequest request, StreamObserver<CreateVolumeResponse> observer) {
    Rpc.unary(
        "CreateVolume",
        request.getName(),
        observer,
        () -> {
          VolumeRecord record =
              volumes.create(
                  VolumeSpecs.from(request, config.nodeId()),
                  request.hasVolumeContentSource() ? Rpc.remaining(COPY_LIMIT) : COPY_LIMIT);
          return CreateVolumeResponse.newBuilder()
              .setVolume(Messages.volume(record, config.nodeId()))
              .build();
        });
  }

  @Override
  public void deleteVolume(
      DeleteVolumeRequest request, StreamObserver<DeleteVolumeResponse> observer) {
    Rpc.unary(
        "DeleteVolume",
        request.getVolumeId(),
        observer,
        () -> {
          Requests.requirePresent(request.getVolumeId(), "volume_id");
          volumes.delete(request.getVolumeId());
          return DeleteVolumeResponse.getDefaultInstance();
        });
  }

  @Override
  public void validateVolumeCapabilities(
      ValidateVolumeCapabilitiesRequest request,
      StreamObserver<ValidateVolumeCapabilitiesResponse> observer) {
    Rpc.unary(
        "ValidateVolumeCapabilities",
        request.getVolumeId(),
        observer,
        () -> queries.validate(request));
  }

  @Override
  public void listVolumes(
      ListVolumesRequest request, StreamObserver<ListVolumesResponse> observer) {
    Rpc.unary("ListVolumes", null, observer, () -> queries.list(request));
  }

  @Override
  public void controllerGetVolume(
      ControllerGetVolumeRequest request, StreamObserver<ControllerGetVolumeResponse> observer) {
    Rpc.unary("ControllerGetVolume", request.getVolumeId(), observer, () -> queries.get(request));
  }

  @Override
  public void getCapacity(
      GetCapacityRequest request, StreamObserver<GetCapacityResponse> observer) {
    Rpc.unary("GetCapacity", null, observer, () -> queries.capacity(request));
  }

  @Override
  public void controllerGetCapabilities(
      ControllerGetCapabilitiesRequest request,
      StreamObserver<ControllerGetCapabilitiesResponse> observer) {
    Rpc.unary(
        "ControllerGetCapabilities",
        null,
        observer,
        () -> {
          return ControllerCapabilities.response(config.nodeExpansion());
        });
  }

  @Override
  public void createSnapshot(
      CreateSnapshotRequest request, StreamObserver<CreateSnapshotResponse> observer) {
    Rpc.unary(
        "CreateSnapshot", request.getSourceVolumeId(), observer, () -> snapshots.create(request));
  }

  @Override
  public void deleteSnapshot(
      DeleteSnapshotRequest request, StreamObserver<DeleteSnapshotResponse> observer) {
    Rpc.unary("DeleteSnapshot", request.getSnapshotId(), observer, () -> snapshots.delete(request));
  }

  @Override
  public void getSnapshot(
      GetSnapshotRequest request, StreamObserver<GetSnapshotResponse> observer) {
    Rpc.unary("GetSnapshot", request.getSnapshotId(), observer, () -> snapshots.get(request));
  }

  @Override
  public void listSnapshots(
      ListSnapshotsRequest request, StreamObserver<ListSnapshotsResponse> observer) {
    Rpc.unary("ListSnapshots", null, observer, () -> snapshots.list(request));
  }

  @Override
  public void controllerExpandVolume(
      ControllerExpandVolumeRequest request,
      StreamObserver<ControllerExpandVolumeResponse> observer) {
    Rpc.unary(
        "ControllerExpandVolume",
        request.getVolumeId(),
        observer,
        () -> {
          if (config.nodeExpansion()) {
            throw new CsiException(
                io.grpc.Status.Code.UNIMPLEMENTED,
                "this driver grows volumes in NodeExpandVolume on the node that holds them"
                    + " (--expansion=node)");
          }
          Requests.requirePresent(request.getVolumeId(), "volume_id");
          if (!request.hasCapacityRange()) {
            throw CsiException.invalidArgument("capacity_range is required");
          }
          Requests.capacityRange(request.getCapacityRange());
          if (request.hasVolumeCapability()) {
            Requests.usage(request.getVolumeCapability(), "volume_capability");
          }
          VolumeRecord record =
              volumes.expand(
                  Requests.volumeId(request.getVolumeId()),
                  request.getCapacityRange().getRequiredBytes(),
                  request.getCapacityRange().getLimitBytes());
          return ControllerExpandVolumeResponse.newBuilder()
              .setCapacityBytes(record.sizeBytes())
              .setNodeExpansionRequired(true)
              .build();
        });
  }

  @Override
  public void controllerModifyVolume(
      ControllerModifyVolumeRequest request,
      StreamObserver<ControllerModifyVolumeResponse> observer) {
    Rpc.unary(
        "ControllerModifyVolume",
        request.getVolumeId(),
        observer,
        () -> modification.modify(request));
  }
}
