package io.thinvol.operator.transfer;

import io.grpc.Status;
import io.thinvol.addons.call.MoveCopier;
import io.thinvol.addons.resolve.DriverEndpoint;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiFunction;

/** Questions a driver answers at once (a space, a drop, a role), asked from a reconcile. */
public final class QuickAnswers {

  /** Quick, or the driver is not answering. */
  public static final Duration QUICK = Duration.ofSeconds(10);

  /**
   * A driver's answer, or why there is none ({@code failure}: UNAVAILABLE when no driver pod is
   * ready, DEADLINE_EXCEEDED when it did not answer in time).
   */
  public record Asked<T>(T answer, Status failure) {}

  private QuickAnswers() {}

  /** Asks the driver at {@code endpoint} (empty: no ready pod) within {@link #QUICK}. */
  public static <T> Asked<T> ask(
      MoveCopier copier,
      Optional<DriverEndpoint> endpoint,
      BiFunction<MoveCopier, DriverEndpoint, CompletableFuture<T>> call) {
    if (endpoint.isEmpty()) {
      return new Asked<>(null, Status.UNAVAILABLE.withDescription("no ready driver pod"));
    }
    try {
      return new Asked<>(
          call.apply(copier, endpoint.get()).get(QUICK.toMillis(), TimeUnit.MILLISECONDS), null);
    } catch (ExecutionException e) {
      return new Asked<>(null, Status.fromThrowable(e.getCause()));
    } catch (TimeoutException e) {
      return new Asked<>(
          null,
          Status.DEADLINE_EXCEEDED.withDescription("no answer in " + QUICK.toSeconds() + "s"));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Asked<>(null, Status.CANCELLED);
    }
  }
}
