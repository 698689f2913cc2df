package io.thinvol.operator.move;

import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.inbound.SimpleInboundEventSource;
import io.thinvol.addons.call.MoveCopier;
import io.thinvol.addons.call.MoveCopier.CopiedIn;
import io.thinvol.addons.call.MoveCopier.Taken;
import io.thinvol.api.v1alpha1.VolumeMove;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * The cut-over's driver calls in flight (S2 on the source node, the copy on the target), by move
 * uid, held without a reconcile thread: either may take minutes. When one ends its move is
 * reconciled to take the result. After a restart a call is asked again: the driver answers what it
 * made first (both calls are idempotent by name).
 */
final class CopyCalls {

  /** A call may take this long: the driver copies a whole image, or pulls the changed blocks. */
  static final Duration TIMEOUT = Duration.ofMinutes(30);

  private static final String SNAPSHOT = "/snapshot";
  private static final String COPY = "/copy";

  private final MoveCopier copier;
  private final SimpleInboundEventSource<VolumeMove> wakeUps =
      new SimpleInboundEventSource<>("move-wake-ups");
  private final Map<String, CompletableFuture<?>> calls = new ConcurrentHashMap<>();

  CopyCalls(MoveCopier copier) {
    this.copier = copier;
  }

  /** Wakes a move when a call of it ends, or when a copy slot frees on its source node. */
  SimpleInboundEventSource<VolumeMove> wakeUps() {
    return wakeUps;
  }

  MoveCopier copier() {
    return copier;
  }

  /** The cut-over snapshot's call, as {@link #call}. */
  Optional<CompletableFuture<Taken>> snapshot(
      ResourceID move, String uid, Supplier<CompletableFuture<Taken>> start) {
    return call(move, uid + SNAPSHOT, start);
  }

  /** The copy's call, as {@link #call}. */
  Optional<CompletableFuture<CopiedIn>> copy(
      ResourceID move, String uid, Supplier<CompletableFuture<CopiedIn>> start) {
    return call(move, uid + COPY, start);
  }

  /**
   * The call's result once it ended, empty while it runs; starts it when none is in flight. A
   * success is kept until {@link #forget} (a later step reads it again); a failure is handed out
   * once, so that the next look asks again.
   */
  @SuppressWarnings("unchecked")
  private <T> Optional<CompletableFuture<T>> call(
      ResourceID move, String key, Supplier<CompletableFuture<T>> start) {
    CompletableFuture<T> call = (CompletableFuture<T>) calls.get(key);
    if (call == null) {
      CompletableFuture<T> started = start.get();
      calls.put(key, started);
      started.whenComplete((result, error) -> wakeUps.propagateEvent(move));
      return started.isDone() ? call(move, key, start) : Optional.empty();
    }
    if (!call.isDone()) {
      return Optional.empty();
    }
    if (call.isCompletedExceptionally()) {
      calls.remove(key);
    }
    return Optional.of(call);
  }

  /** The successful copy of a move this process holds, if any. */
  Optional<CopiedIn> copied(String uid) {
    CompletableFuture<?> call = calls.get(uid + COPY);
    return call != null && call.isDone() && !call.isCompletedExceptionally()
        ? Optional.of((CopiedIn) call.join())
        : Optional.empty();
  }

  /** The call of the move that runs in this process, said for its status, if one does. */
  Optional<String> inFlight(String uid) {
    if (runs(uid + SNAPSHOT)) {
      return Optional.of("the cut-over snapshot the source node's driver is taking");
    }
    return runs(uid + COPY) ? Optional.of("the copy to the target node") : Optional.empty();
  }

  private boolean runs(String key) {
    CompletableFuture<?> call = calls.get(key);
    return call != null && !call.isDone();
  }

  /**
   * Gives up the move's calls in flight (their node is lost, or NotReady past the deadline): they
   * end at once, cancelled, and what they may have made is dropped by name as after a restart.
   */
  void cancel(String uid) {
    for (String key : new String[] {uid + SNAPSHOT, uid + COPY}) {
      CompletableFuture<?> call = calls.remove(key);
      if (call != null) {
        call.cancel(true);
      }
    }
  }

  /** Forgets a move's calls (they ended or were given up). */
  void forget(String uid) {
    calls.remove(uid + SNAPSHOT);
    calls.remove(uid + COPY);
  }
}
