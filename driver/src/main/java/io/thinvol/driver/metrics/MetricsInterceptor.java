package io.thinvol.driver.metrics;

import io.grpc.ForwardingServerCall;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;

/** Counts every call by method and final status code, and records how long it took. */
public final class MetricsInterceptor implements ServerInterceptor {

  private final Metrics metrics;

  public MetricsInterceptor(Metrics metrics) {
    this.metrics = metrics;
  }

  @Override
  public <Q, R> ServerCall.Listener<Q> interceptCall(
      ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
    long start = System.nanoTime();
    String method = call.getMethodDescriptor().getBareMethodName();
    return next.startCall(
        new ForwardingServerCall.SimpleForwardingServerCall<>(call) {
          @Override
          public void close(Status status, Metadata trailers) {
            metrics.call(method, status.getCode().name(), System.nanoTime() - start);
            super.close(status, trailers);
          }
        },
        headers);
  }
}
