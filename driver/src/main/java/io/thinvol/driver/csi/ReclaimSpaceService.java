package io.thinvol.driver.csi;

import csiaddons.reclaimspace.ControllerReclaimSpaceRequest;
import csiaddons.reclaimspace.ControllerReclaimSpaceResponse;
import csiaddons.reclaimspace.NodeReclaimSpaceRequest;
import csiaddons.reclaimspace.NodeReclaimSpaceResponse;
import csiaddons.reclaimspace.ReclaimSpaceControllerGrpc;
import csiaddons.reclaimspace.ReclaimSpaceNodeGrpc;
import csiaddons.reclaimspace.StorageConsumption;
import io.grpc.BindableService;
import io.grpc.stub.StreamObserver;
import io.thinvol.driver.core.SpaceReclaimer;
import io.thinvol.driver.metrics.Metrics;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * CSI-Addons ReclaimSpace, node and controller side. Both answer with the bytes the volume's image
 * occupied before and after ({@code pre_usage - post_usage} is what was given back).
 */
public final class ReclaimSpaceService {

  // A trim of a large, fragmented filesystem can take minutes; callers normally set a deadline.
  private static final Duration LIMIT = Duration.ofHours(1);

  private final SpaceReclaimer reclaimer;
  private final Metrics metrics;

  public ReclaimSpaceService(SpaceReclaimer reclaimer, Metrics metrics) {
    this.reclaimer = reclaimer;
    this.metrics = metrics;
  }

  public List<BindableService> services() {
    return List.of(new Node(), new Controller());
  }

  private final class Node extends ReclaimSpaceNodeGrpc.ReclaimSpaceNodeImplBase {
    @Override
    public void nodeReclaimSpace(
        NodeReclaimSpaceRequest request, StreamObserver<NodeReclaimSpaceResponse> observer) {
      Rpc.unary(
          "NodeReclaimSpace",
          request.getVolumeId(),
          observer,
          () -> {
            Requests.requirePresent(request.getVolumeId(), "volume_id");
            Path staging =
                Requests.optionalPath(request.getStagingTargetPath(), "staging_target_path");
            Path volumePath = Requests.optionalPath(request.getVolumePath(), "volume_path");
            boolean block =
                request.hasVolumeCapability() && request.getVolumeCapability().hasBlock();
            SpaceReclaimer.Usage usage =
                reclaimer.onNode(
                    Requests.volumeId(request.getVolumeId()),
                    staging,
                    volumePath,
                    block,
                    Rpc.remaining(LIMIT));
            metrics.reclaimed("node", usage.reclaimed());
            return NodeReclaimSpaceResponse.newBuilder()
                .setPreUsage(consumption(usage.before()))
                .setPostUsage(consumption(usage.after()))
                .build();
          });
    }
  }

  private final class Controller extends ReclaimSpaceControllerGrpc.ReclaimSpaceControllerImplBase {
    @Override
    public void controllerReclaimSpace(
        ControllerReclaimSpaceRequest request,
        StreamObserver<ControllerReclaimSpaceResponse> observer) {
      Rpc.unary(
          "ControllerReclaimSpace",
          request.getVolumeId(),
          observer,
          () -> {
            Requests.requirePresent(request.getVolumeId(), "volume_id");
            SpaceReclaimer.Usage usage =
                reclaimer.offline(Requests.volumeId(request.getVolumeId()), Rpc.remaining(LIMIT));
            metrics.reclaimed("controller", usage.reclaimed());
            return ControllerReclaimSpaceResponse.newBuilder()
                .setPreUsage(consumption(usage.before()))
                .setPostUsage(consumption(usage.after()))
                .build();
          });
    }
  }

  private static StorageConsumption consumption(long bytes) {
    return StorageConsumption.newBuilder().setUsageBytes(bytes).build();
  }
}
