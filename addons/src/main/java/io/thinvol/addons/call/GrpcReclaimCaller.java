package io.thinvol.addons.call;

import com.google.common.util.concurrent.FutureCallback;
import com.google.common.util.concurrent.Futures;
import com.google.common.util.concurrent.ListenableFuture;
import com.google.common.util.concurrent.MoreExecutors;
import csiaddons.reclaimspace.ControllerReclaimSpaceRequest;
import csiaddons.reclaimspace.NodeReclaimSpaceRequest;
import csiaddons.reclaimspace.ReclaimSpaceControllerGrpc;
import csiaddons.reclaimspace.ReclaimSpaceNodeGrpc;
import csiaddons.reclaimspace.StorageConsumption;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.thinvol.addons.resolve.DriverEndpoint;
import java.time.Duration;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Calls driver pods over TLS ({@link DriverChannels}) with the operator's projected addons token
 * ({@link ProjectedToken}).
 */
public final class GrpcReclaimCaller implements ReclaimCaller, AutoCloseable {

  private final DriverChannels channels;
  private final BearerToken token;

  public GrpcReclaimCaller(KubernetesClient client, String namespace, Supplier<String> token) {
    this.channels = new DriverChannels(client, namespace, System::nanoTime);
    this.token = new BearerToken(token);
  }

  @Override
  public CompletableFuture<Usage> call(
      DriverEndpoint endpoint, ReclaimService service, String volumeId, Duration timeout) {
    ManagedChannel channel;
    try {
      token.check();
    } catch (TokenUnreadable e) {
      return CompletableFuture.failedFuture(BearerToken.unreadable(e).asRuntimeException());
    }
    try {
      channel = channels.channel(endpoint);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(
          Status.UNAVAILABLE.withDescription(e.getMessage()).asRuntimeException());
    }
    long millis = timeout.toMillis();
    return switch (service) {
      case NODE ->
          usage(
              ReclaimSpaceNodeGrpc.newFutureStub(channel)
                  .withCallCredentials(token)
                  .withDeadlineAfter(millis, TimeUnit.MILLISECONDS)
                  .nodeReclaimSpace(
                      NodeReclaimSpaceRequest.newBuilder().setVolumeId(volumeId).build()),
              r -> r.hasPreUsage() ? r.getPreUsage() : null,
              r -> r.hasPostUsage() ? r.getPostUsage() : null);
      case CONTROLLER ->
          usage(
              ReclaimSpaceControllerGrpc.newFutureStub(channel)
                  .withCallCredentials(token)
                  .withDeadlineAfter(millis, TimeUnit.MILLISECONDS)
                  .controllerReclaimSpace(
                      ControllerReclaimSpaceRequest.newBuilder().setVolumeId(volumeId).build()),
              r -> r.hasPreUsage() ? r.getPreUsage() : null,
              r -> r.hasPostUsage() ? r.getPostUsage() : null);
    };
  }

  private static <R> CompletableFuture<Usage> usage(
      ListenableFuture<R> call,
      Function<R, StorageConsumption> pre,
      Function<R, StorageConsumption> post) {
    CompletableFuture<Usage> result = new CompletableFuture<>();
    Futures.addCallback(
        call,
        new FutureCallback<R>() {
          @Override
          public void onSuccess(R response) {
            result.complete(new Usage(bytes(pre.apply(response)), bytes(post.apply(response))));
          }

          @Override
          public void onFailure(Throwable t) {
            result.completeExceptionally(t);
          }
        },
        MoreExecutors.directExecutor());
    return result;
  }

  private static OptionalLong bytes(StorageConsumption consumption) {
    return consumption == null
        ? OptionalLong.empty()
        : OptionalLong.of(consumption.getUsageBytes());
  }

  @Override
  public void close() {
    channels.close();
  }
}
