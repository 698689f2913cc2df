package io.thinvol.driver.csi;

import io.grpc.Context;
import io.grpc.Deadline;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.thinvol.driver.core.CsiException;
import io.thinvol.driver.host.DetachPendingException;
import io.thinvol.driver.host.HostCommandException;
import io.thinvol.driver.store.Ids;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * Runs one unary RPC: sets the MDC keys every log line of the call carries, and turns every failure
 * into a status with the spec's code and a message a person can act on. No exception reaches
 * grpc-java, so no call ever ends as UNKNOWN.
 */
final class Rpc {

  private static final Logger log = LoggerFactory.getLogger(Rpc.class);
  static final String MDC_RPC = "rpc";
  static final String MDC_VOLUME = "volume";

  private Rpc() {}

  static <T> void unary(
      String method, String subject, StreamObserver<T> observer, Supplier<T> body) {
    MDC.put(MDC_RPC, method);
    if (subject != null && !subject.isEmpty()) {
      MDC.put(MDC_VOLUME, Ids.isVolumeId(subject) ? subject : Requests.shown(subject));
    }
    long start = System.nanoTime();
    try {
      T response = body.get();
      log.debug("ok in {} ms", (System.nanoTime() - start) / 1_000_000);
      observer.onNext(response);
      observer.onCompleted();
    } catch (RuntimeException e) {
      fail(observer, e);
    } finally {
      MDC.remove(MDC_RPC);
      MDC.remove(MDC_VOLUME);
    }
  }

  /** A call about no volume whose answer never changes (identity, capabilities, probe). */
  static <T> void constant(String method, StreamObserver<T> observer, T answer) {
    unary(method, null, observer, () -> answer);
  }

  /** Ends a call with the status {@code e} maps to, logged as its gravity deserves. */
  static void fail(StreamObserver<?> observer, RuntimeException e) {
    Status status = toStatus(e);
    if (e instanceof HostCommandException && !(e instanceof DetachPendingException)) {
      log.error("failed: {}", status.getDescription()); // the message names command and stderr
    } else if (status.getCode() == Status.Code.INTERNAL) {
      log.error("failed: {}", status.getDescription(), e);
    } else {
      log.info("refused with {}: {}", status.getCode(), status.getDescription());
    }
    observer.onError(status.asRuntimeException());
  }

  /**
   * How long the work of this call may take: the caller's deadline (less a second to answer in
   * time), at most {@code limit}. Commands get this as their timeout, so nothing outlives the call
   * and keeps holding the volume's lock.
   */
  static Duration remaining(Duration limit) {
    Deadline deadline = Context.current().getDeadline();
    if (deadline == null) {
      return limit;
    }
    long millis = deadline.timeRemaining(TimeUnit.MILLISECONDS) - 1_000;
    if (millis <= 0) {
      throw new CsiException(
          Status.Code.DEADLINE_EXCEEDED, "the call's deadline leaves no time to do the work");
    }
    return Duration.ofMillis(Math.min(millis, limit.toMillis()));
  }

  static Status toStatus(RuntimeException e) {
    if (e instanceof CsiException csi) {
      return Status.fromCode(csi.code()).withDescription(csi.getMessage());
    }
    if (e instanceof DetachPendingException pending) {
      // not a fault of the driver: something else holds the device; a retry succeeds later
      return Status.FAILED_PRECONDITION.withDescription(pending.getMessage());
    }
    if (e instanceof HostCommandException host) {
      return (host.isTimeout() ? Status.DEADLINE_EXCEEDED : Status.INTERNAL)
          .withDescription("host command failed: " + host.getMessage());
    }
    return Status.INTERNAL.withDescription(
        "unexpected "
            + e.getClass().getSimpleName()
            + ": "
            + e.getMessage()
            + " (see the driver log)");
  }
}
