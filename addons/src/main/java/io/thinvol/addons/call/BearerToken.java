package io.thinvol.addons.call;

import io.grpc.CallCredentials;
import io.grpc.Metadata;
import io.grpc.Status;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

/** Sends the addons token ({@link ProjectedToken}); the driver checks it with a TokenReview. */
final class BearerToken extends CallCredentials {

  private static final Metadata.Key<String> AUTHORIZATION =
      Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);

  private final Supplier<String> token;

  BearerToken(Supplier<String> token) {
    this.token = token;
  }

  @Override
  public void applyRequestMetadata(
      RequestInfo requestInfo, Executor appExecutor, MetadataApplier applier) {
    try {
      Metadata headers = new Metadata();
      headers.put(AUTHORIZATION, "Bearer " + token.get());
      applier.apply(headers);
    } catch (RuntimeException e) {
      applier.fail(Status.UNAUTHENTICATED.withDescription(e.getMessage()));
    }
  }
}
