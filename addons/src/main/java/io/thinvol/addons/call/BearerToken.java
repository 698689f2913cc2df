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
    } catch (TokenUnreadable e) {
      applier.fail(unreadable(e));
    } catch (RuntimeException e) {
      applier.fail(Status.UNAUTHENTICATED.withDescription(e.getMessage()));
    }
  }

  /**
   * @throws TokenUnreadable before a call is made that could only fail for want of a token
   */
  void check() {
    token.get();
  }

  /** UNAUTHENTICATED on the operator's side: the cause tells it from a token the driver refused. */
  static Status unreadable(TokenUnreadable e) {
    return Status.UNAUTHENTICATED.withDescription(e.getMessage()).withCause(e);
  }
}
