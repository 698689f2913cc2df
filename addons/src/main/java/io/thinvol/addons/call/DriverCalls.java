package io.thinvol.addons.call;

import com.google.common.util.concurrent.FutureCallback;
import com.google.common.util.concurrent.Futures;
import com.google.common.util.concurrent.ListenableFuture;
import com.google.common.util.concurrent.MoreExecutors;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.grpc.Channel;
import io.grpc.Status;
import io.grpc.stub.AbstractFutureStub;
import io.thinvol.addons.resolve.DriverEndpoint;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Unary calls to driver pods over TLS ({@link DriverChannels}) with the operator's projected addons
 * token ({@link ProjectedToken}): one set of channels and one token for every kind of call the
 * operator makes (reclaims, a move's copies). A call that cannot start (no token, no certificate)
 * fails its future, never throws.
 */
public final class DriverCalls implements AutoCloseable {

  private final DriverChannels channels;
  private final BearerToken token;

  public DriverCalls(KubernetesClient client, String namespace, Supplier<String> token) {
    this.channels = new DriverChannels(client, namespace, System::nanoTime);
    this.token = new BearerToken(token);
  }

  /**
   * Calls {@code method} on a stub of {@code endpoint} that {@code stub} makes, with the token and
   * a deadline {@code timeout} away.
   */
  <S extends AbstractFutureStub<S>, R> CompletableFuture<R> call(
      DriverEndpoint endpoint,
      Duration timeout,
      Function<Channel, S> stub,
      Function<S, ListenableFuture<R>> method) {
    try {
      token.check();
    } catch (TokenUnreadable e) {
      return CompletableFuture.failedFuture(BearerToken.unreadable(e).asRuntimeException());
    }
    Channel channel;
    try {
      channel = channels.channel(endpoint);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(
          Status.UNAVAILABLE.withDescription(e.getMessage()).asRuntimeException());
    }
    S ready =
        stub.apply(channel)
            .withCallCredentials(token)
            .withDeadlineAfter(timeout.toMillis(), TimeUnit.MILLISECONDS);
    return completable(method.apply(ready));
  }

  private static <R> CompletableFuture<R> completable(ListenableFuture<R> call) {
    CompletableFuture<R> result = new CompletableFuture<>();
    Futures.addCallback(
        call,
        new FutureCallback<R>() {
          @Override
          public void onSuccess(R response) {
            result.complete(response);
          }

          @Override
          public void onFailure(Throwable t) {
            result.completeExceptionally(t);
          }
        },
        MoreExecutors.directExecutor());
    // A caller that gives up the call (its node is lost) ends it on the wire too.
    result.whenComplete(
        (response, failure) -> {
          if (result.isCancelled()) {
            call.cancel(true);
          }
        });
    return result;
  }

  @Override
  public void close() {
    channels.close();
  }
}
