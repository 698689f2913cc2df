package io.thinvol.driver.client;

import csi.v1.CapacityRange;
import csi.v1.ControllerExpandVolumeRequest;
import csi.v1.ControllerGrpc;
import csi.v1.CreateSnapshotRequest;
import csi.v1.CreateVolumeRequest;
import csi.v1.DeleteVolumeRequest;
import csi.v1.GroupControllerGrpc;
import csi.v1.IdentityGrpc;
import csi.v1.NodeGrpc;
import csi.v1.NodePublishVolumeRequest;
import csi.v1.NodeStageVolumeRequest;
import csi.v1.NodeUnpublishVolumeRequest;
import csi.v1.NodeUnstageVolumeRequest;
import csi.v1.SnapshotMetadataGrpc;
import csi.v1.VolumeCapability;
import csi.v1.VolumeContentSource;
import io.grpc.ManagedChannel;
import io.netty.channel.EventLoopGroup;
import io.thinvol.driver.server.UnixSockets;
import java.nio.file.Path;

/**
 * Blocking CSI stubs over one unix-socket channel, with the volume lifecycle calls spelled out once
 * for the preflight, the tests and the benchmarks.
 */
public final class CsiClient implements AutoCloseable {

  private final EventLoopGroup eventLoops;
  private final ManagedChannel channel;
  private final IdentityGrpc.IdentityBlockingStub identity;
  private final ControllerGrpc.ControllerBlockingStub controller;
  private final GroupControllerGrpc.GroupControllerBlockingStub groupController;
  private final NodeGrpc.NodeBlockingStub node;
  private final SnapshotMetadataGrpc.SnapshotMetadataBlockingStub snapshotMetadata;

  public CsiClient(Path socket) {
    this.eventLoops = UnixSockets.eventLoops(1);
    this.channel = UnixSockets.channel(socket, eventLoops);
    this.identity = IdentityGrpc.newBlockingStub(channel);
    this.controller = ControllerGrpc.newBlockingStub(channel);
    this.groupController = GroupControllerGrpc.newBlockingStub(channel);
    this.node = NodeGrpc.newBlockingStub(channel);
    this.snapshotMetadata = SnapshotMetadataGrpc.newBlockingStub(channel);
  }

  public IdentityGrpc.IdentityBlockingStub identity() {
    return identity;
  }

  public ControllerGrpc.ControllerBlockingStub controller() {
    return controller;
  }

  public GroupControllerGrpc.GroupControllerBlockingStub groupController() {
    return groupController;
  }

  public NodeGrpc.NodeBlockingStub node() {
    return node;
  }

  public SnapshotMetadataGrpc.SnapshotMetadataBlockingStub snapshotMetadata() {
    return snapshotMetadata;
  }

  /** CreateVolume with a required size; {@code source} may be null. Returns the volume id. */
  public String createVolume(
      String name, long bytes, VolumeCapability capability, VolumeContentSource source) {
    CreateVolumeRequest.Builder request =
        CreateVolumeRequest.newBuilder()
            .setName(name)
            .setCapacityRange(CapacityRange.newBuilder().setRequiredBytes(bytes))
            .addVolumeCapabilities(capability);
    if (source != null) {
      request.setVolumeContentSource(source);
    }
    return controller.createVolume(request.build()).getVolume().getVolumeId();
  }

  /** CreateSnapshot; returns the snapshot id. */
  public String createSnapshot(String name, String sourceVolumeId) {
    return controller
        .createSnapshot(
            CreateSnapshotRequest.newBuilder()
                .setName(name)
                .setSourceVolumeId(sourceVolumeId)
                .build())
        .getSnapshot()
        .getSnapshotId();
  }

  /** The ControllerExpandVolume request for a required size. */
  public static ControllerExpandVolumeRequest expandRequest(String volumeId, long bytes) {
    return ControllerExpandVolumeRequest.newBuilder()
        .setVolumeId(volumeId)
        .setCapacityRange(CapacityRange.newBuilder().setRequiredBytes(bytes))
        .build();
  }

  /** ControllerExpandVolume to a required size; returns the capacity the driver reports. */
  public long expand(String volumeId, long bytes) {
    return controller.controllerExpandVolume(expandRequest(volumeId, bytes)).getCapacityBytes();
  }

  public void deleteVolume(String volumeId) {
    controller.deleteVolume(DeleteVolumeRequest.newBuilder().setVolumeId(volumeId).build());
  }

  public void stage(String volumeId, Path staging, VolumeCapability capability) {
    node.nodeStageVolume(
        NodeStageVolumeRequest.newBuilder()
            .setVolumeId(volumeId)
            .setStagingTargetPath(staging.toString())
            .setVolumeCapability(capability)
            .build());
  }

  public void unstage(String volumeId, Path staging) {
    node.nodeUnstageVolume(
        NodeUnstageVolumeRequest.newBuilder()
            .setVolumeId(volumeId)
            .setStagingTargetPath(staging.toString())
            .build());
  }

  public void publish(
      String volumeId, Path staging, Path target, VolumeCapability capability, boolean readOnly) {
    node.nodePublishVolume(
        NodePublishVolumeRequest.newBuilder()
            .setVolumeId(volumeId)
            .setStagingTargetPath(staging.toString())
            .setTargetPath(target.toString())
            .setVolumeCapability(capability)
            .setReadonly(readOnly)
            .build());
  }

  public void unpublish(String volumeId, Path target) {
    node.nodeUnpublishVolume(
        NodeUnpublishVolumeRequest.newBuilder()
            .setVolumeId(volumeId)
            .setTargetPath(target.toString())
            .build());
  }

  @Override
  public void close() {
    UnixSockets.close(channel, eventLoops);
  }
}
