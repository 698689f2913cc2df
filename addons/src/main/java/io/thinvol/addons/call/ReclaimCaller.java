package io.thinvol.addons.call;

import io.thinvol.addons.resolve.DriverEndpoint;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * Calls one ReclaimSpace service of a driver pod. The future fails with a gRPC {@link
 * io.grpc.StatusRuntimeException} when the call does.
 */
public interface ReclaimCaller {

  CompletableFuture<Usage> call(
      DriverEndpoint endpoint, ReclaimService service, String volumeId, Duration timeout);
}
