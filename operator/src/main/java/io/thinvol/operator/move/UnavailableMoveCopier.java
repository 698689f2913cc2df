package io.thinvol.operator.move;

import io.grpc.Status;
import io.thinvol.addons.call.MoveCopier;
import io.thinvol.addons.resolve.DriverEndpoint;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * Until the driver's MoveCopy client is wired in: every call fails as an unimplemented method, so a
 * move's cut-over rolls back and its space figures stay empty.
 */
public final class UnavailableMoveCopier implements MoveCopier {

  @Override
  public CompletableFuture<CopiedIn> copyIn(
      DriverEndpoint target, CopyIn request, Duration timeout) {
    return CompletableFuture.failedFuture(unimplemented());
  }

  @Override
  public CompletableFuture<VolumeSpace> space(
      DriverEndpoint node, String volumeId, Duration timeout) {
    return CompletableFuture.failedFuture(unimplemented());
  }

  private static RuntimeException unimplemented() {
    return Status.UNIMPLEMENTED
        .withDescription("this operator build has no MoveCopy client")
        .asRuntimeException();
  }
}
