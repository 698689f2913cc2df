package io.thinvol.addons.call;

import com.google.common.util.concurrent.Futures;
import com.google.common.util.concurrent.ListenableFuture;
import com.google.common.util.concurrent.MoreExecutors;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Message;
import csiaddons.reclaimspace.ControllerReclaimSpaceRequest;
import csiaddons.reclaimspace.NodeReclaimSpaceRequest;
import csiaddons.reclaimspace.ReclaimSpaceControllerGrpc;
import csiaddons.reclaimspace.ReclaimSpaceControllerGrpc.ReclaimSpaceControllerFutureStub;
import csiaddons.reclaimspace.ReclaimSpaceNodeGrpc;
import csiaddons.reclaimspace.ReclaimSpaceNodeGrpc.ReclaimSpaceNodeFutureStub;
import csiaddons.reclaimspace.StorageConsumption;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.thinvol.addons.resolve.DriverEndpoint;
import java.time.Duration;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Supplier;

/** Calls driver pods' CSI-Addons reclaim services ({@link DriverCalls}). */
public final class GrpcReclaimCaller implements ReclaimCaller, AutoCloseable {

  private final DriverCalls calls;

  public GrpcReclaimCaller(KubernetesClient client, String namespace, Supplier<String> token) {
    this(new DriverCalls(client, namespace, token));
  }

  /** Over {@code calls}, which closing this caller closes. */
  public GrpcReclaimCaller(DriverCalls calls) {
    this.calls = calls;
  }

  @Override
  public CompletableFuture<Usage> call(
      DriverEndpoint endpoint, ReclaimService service, String volumeId, Duration timeout) {
    return switch (service) {
      case NODE ->
          calls.call(endpoint, timeout, ReclaimSpaceNodeGrpc::newFutureStub, node(volumeId));
      case CONTROLLER ->
          calls.call(
              endpoint, timeout, ReclaimSpaceControllerGrpc::newFutureStub, controller(volumeId));
    };
  }

  private static Function<ReclaimSpaceNodeFutureStub, ListenableFuture<Usage>> node(String id) {
    return stub ->
        usage(stub.nodeReclaimSpace(NodeReclaimSpaceRequest.newBuilder().setVolumeId(id).build()));
  }

  private static Function<ReclaimSpaceControllerFutureStub, ListenableFuture<Usage>> controller(
      String id) {
    return stub ->
        usage(
            stub.controllerReclaimSpace(
                ControllerReclaimSpaceRequest.newBuilder().setVolumeId(id).build()));
  }

  /**
   * Both services answer {@code pre_usage} and {@code post_usage}, either of which may be unset.
   */
  private static ListenableFuture<Usage> usage(ListenableFuture<? extends Message> answer) {
    return Futures.transform(
        answer,
        r -> new Usage(bytes(r, "pre_usage"), bytes(r, "post_usage")),
        MoreExecutors.directExecutor());
  }

  private static OptionalLong bytes(Message answer, String field) {
    FieldDescriptor usage = answer.getDescriptorForType().findFieldByName(field);
    return answer.hasField(usage)
        ? OptionalLong.of(((StorageConsumption) answer.getField(usage)).getUsageBytes())
        : OptionalLong.empty();
  }

  @Override
  public void close() {
    calls.close();
  }
}
