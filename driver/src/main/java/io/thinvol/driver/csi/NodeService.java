package io.thinvol.driver.csi;

import csi.v1.NodeExpandVolumeRequest;
import csi.v1.NodeExpandVolumeResponse;
import csi.v1.NodeGetCapabilitiesRequest;
import csi.v1.NodeGetCapabilitiesResponse;
import csi.v1.NodeGetInfoRequest;
import csi.v1.NodeGetInfoResponse;
import csi.v1.NodeGetVolumeStatsRequest;
import csi.v1.NodeGetVolumeStatsResponse;
import csi.v1.NodeGrpc;
import csi.v1.NodePublishVolumeRequest;
import csi.v1.NodePublishVolumeResponse;
import csi.v1.NodeServiceCapability;
import csi.v1.NodeStageVolumeRequest;
import csi.v1.NodeStageVolumeResponse;
import csi.v1.NodeUnpublishVolumeRequest;
import csi.v1.NodeUnpublishVolumeResponse;
import csi.v1.NodeUnstageVolumeRequest;
import csi.v1.NodeUnstageVolumeResponse;
import csi.v1.VolumeUsage;
import io.grpc.stub.StreamObserver;
import io.thinvol.driver.config.DriverConfig;
import io.thinvol.driver.core.CsiException;
import io.thinvol.driver.core.NodeManager;
import io.thinvol.driver.core.VolumeHealth;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.function.BiFunction;
import java.util.function.Supplier;
import java.util.stream.Stream;

/** CSI Node: stage (loop device + filesystem), publish (bind mounts), stats and expansion. */
public final class NodeService extends NodeGrpc.NodeImplBase {

  private static final List<NodeServiceCapability.RPC.Type> CAPABILITIES =
      List.of(
          NodeServiceCapability.RPC.Type.STAGE_UNSTAGE_VOLUME,
          NodeServiceCapability.RPC.Type.GET_VOLUME_STATS,
          NodeServiceCapability.RPC.Type.EXPAND_VOLUME,
          NodeServiceCapability.RPC.Type.VOLUME_CONDITION,
          NodeServiceCapability.RPC.Type.SINGLE_NODE_MULTI_WRITER);

  private final DriverConfig config;
  private final NodeManager node;
  private final VolumeHealth health;

  public NodeService(DriverConfig config, NodeManager node, VolumeHealth health) {
    this.config = config;
    this.node = node;
    this.health = health;
  }

  @Override
  public void nodeStageVolume(
      NodeStageVolumeRequest request, StreamObserver<NodeStageVolumeResponse> observer) {
    onVolume(
        "NodeStageVolume",
        request.getVolumeId(),
        observer,
        () -> Requests.path(request.getStagingTargetPath(), "staging_target_path"),
        (volumeId, staging) -> {
          NodeManager.Usage usage =
              Requests.usage(request.getVolumeCapability(), "volume_capability");
          node.stage(volumeId.get(), staging, usage);
          return NodeStageVolumeResponse.getDefaultInstance();
        });
  }

  @Override
  public void nodeUnstageVolume(
      NodeUnstageVolumeRequest request, StreamObserver<NodeUnstageVolumeResponse> observer) {
    onVolume(
        "NodeUnstageVolume",
        request.getVolumeId(),
        observer,
        () -> Requests.path(request.getStagingTargetPath(), "staging_target_path"),
        (volumeId, staging) -> {
          node.unstage(volumeId.get(), staging);
          return NodeUnstageVolumeResponse.getDefaultInstance();
        });
  }

  @Override
  public void nodePublishVolume(
      NodePublishVolumeRequest request, StreamObserver<NodePublishVolumeResponse> observer) {
    onVolume(
        "NodePublishVolume",
        request.getVolumeId(),
        observer,
        () -> Requests.path(request.getTargetPath(), "target_path"),
        (volumeId, target) -> {
          NodeManager.Usage usage =
              Requests.usage(request.getVolumeCapability(), "volume_capability");
          Path staging =
              Requests.optionalPath(request.getStagingTargetPath(), "staging_target_path");
          String id = volumeId.get();
          if (staging == null) {
            throw CsiException.failedPrecondition(
                "staging_target_path is required: this driver stages volumes (STAGE_UNSTAGE_VOLUME)");
          }
          node.publish(id, staging, target, usage, request.getReadonly());
          return NodePublishVolumeResponse.getDefaultInstance();
        });
  }

  @Override
  public void nodeUnpublishVolume(
      NodeUnpublishVolumeRequest request, StreamObserver<NodeUnpublishVolumeResponse> observer) {
    onVolume(
        "NodeUnpublishVolume",
        request.getVolumeId(),
        observer,
        () -> Requests.path(request.getTargetPath(), "target_path"),
        (volumeId, target) -> {
          node.unpublish(volumeId.get(), target);
          return NodeUnpublishVolumeResponse.getDefaultInstance();
        });
  }

  /**
   * A call on one volume at one path, checked in the order every such call keeps: volume_id
   * present, then the path ({@code checkedPath}), then what {@code body} checks before it takes the
   * volume's id ({@code volumeId.get()}: one of no volume's form is NOT_FOUND).
   */
  private static <T> void onVolume(
      String method,
      String volumeId,
      StreamObserver<T> observer,
      Supplier<Path> checkedPath,
      BiFunction<Supplier<String>, Path, T> body) {
    Rpc.unary(
        method,
        volumeId,
        observer,
        () -> {
          Requests.requirePresent(volumeId, "volume_id");
          Path path = checkedPath.get();
          return body.apply(() -> Requests.volumeId(volumeId), path);
        });
  }

  /** The volume_path of stats and expansion, and their staging_target_path when given. */
  private static Path volumePath(String volumeId, String volumePath, String stagingPath) {
    Path checked = Requests.volumePath(volumePath, volumeId);
    Requests.optionalPath(stagingPath, "staging_target_path");
    return checked;
  }

  @Override
  public void nodeGetVolumeStats(
      NodeGetVolumeStatsRequest request, StreamObserver<NodeGetVolumeStatsResponse> observer) {
    onVolume(
        "NodeGetVolumeStats",
        request.getVolumeId(),
        observer,
        () ->
            volumePath(
                request.getVolumeId(), request.getVolumePath(), request.getStagingTargetPath()),
        (id, volumePath) -> {
          String volumeId = id.get();
          NodeManager.Stats stats = node.stats(volumeId, volumePath);
          String problem =
              Stream.of(stats.problem(), health.dataDirProblem(volumeId))
                  .filter(Objects::nonNull)
                  .reduce((a, b) -> a + "; " + b)
                  .orElse(null);
          NodeGetVolumeStatsResponse.Builder response =
              NodeGetVolumeStatsResponse.newBuilder()
                  .setVolumeCondition(Messages.condition(problem));
          if (stats.filesystem() != null) {
            response
                .addUsage(
                    VolumeUsage.newBuilder()
                        .setUnit(VolumeUsage.Unit.BYTES)
                        .setTotal(stats.filesystem().totalBytes())
                        .setAvailable(stats.filesystem().availableBytes())
                        .setUsed(stats.filesystem().usedBytes()))
                .addUsage(
                    VolumeUsage.newBuilder()
                        .setUnit(VolumeUsage.Unit.INODES)
                        .setTotal(stats.filesystem().totalInodes())
                        .setAvailable(stats.filesystem().freeInodes())
                        .setUsed(stats.filesystem().usedInodes()));
          } else if (stats.deviceBytes() > 0) {
            response.addUsage(
                VolumeUsage.newBuilder()
                    .setUnit(VolumeUsage.Unit.BYTES)
                    .setTotal(stats.deviceBytes()));
          }
          return response.build();
        });
  }

  @Override
  public void nodeExpandVolume(
      NodeExpandVolumeRequest request, StreamObserver<NodeExpandVolumeResponse> observer) {
    onVolume(
        "NodeExpandVolume",
        request.getVolumeId(),
        observer,
        () ->
            volumePath(
                request.getVolumeId(), request.getVolumePath(), request.getStagingTargetPath()),
        (volumeId, volumePath) -> {
          if (request.hasVolumeCapability()) {
            Requests.usage(request.getVolumeCapability(), "volume_capability");
          }
          Requests.capacityRange(request.getCapacityRange());
          long required = request.getCapacityRange().getRequiredBytes();
          long limit = request.getCapacityRange().getLimitBytes();
          long size =
              node.expand(volumeId.get(), volumePath, required, limit, config.nodeExpansion());
          if (limit > 0 && size > limit) {
            throw CsiException.outOfRange(
                "volume is %d bytes, more than capacity_range.limit_bytes %d", size, limit);
          }
          return NodeExpandVolumeResponse.newBuilder().setCapacityBytes(size).build();
        });
  }

  @Override
  public void nodeGetCapabilities(
      NodeGetCapabilitiesRequest request, StreamObserver<NodeGetCapabilitiesResponse> observer) {
    Rpc.unary(
        "NodeGetCapabilities",
        null,
        observer,
        () -> {
          NodeGetCapabilitiesResponse.Builder response = NodeGetCapabilitiesResponse.newBuilder();
          CAPABILITIES.forEach(
              type -> response.addCapabilitiesBuilder().getRpcBuilder().setType(type));
          return response.build();
        });
  }

  @Override
  public void nodeGetInfo(
      NodeGetInfoRequest request, StreamObserver<NodeGetInfoResponse> observer) {
    Rpc.unary(
        "NodeGetInfo",
        null,
        observer,
        () ->
            NodeGetInfoResponse.newBuilder()
                .setNodeId(config.nodeId())
                .setMaxVolumesPerNode(config.maxVolumes())
                .setAccessibleTopology(Messages.topology(config.nodeId()))
                .build());
  }
}
