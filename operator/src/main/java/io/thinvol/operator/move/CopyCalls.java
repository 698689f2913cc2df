package io.thinvol.operator.move;

import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.inbound.SimpleInboundEventSource;
import io.thinvol.addons.call.MoveCopier;
import io.thinvol.addons.call.MoveCopier.CopiedIn;
import io.thinvol.addons.resolve.DriverEndpoint;
import io.thinvol.api.v1alpha1.VolumeMove;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The cut-over copies in flight, by move uid, held without a reconcile thread: a copy of a large
 * change set takes minutes. When one ends its move is reconciled to take the result. After a
 * restart the copy is asked again: the target's driver answers the volume it made first (the call
 * is idempotent by name).
 */
final class CopyCalls {

  /** A copy may take this long; the driver pulls the changed blocks in this time. */
  static final Duration TIMEOUT = Duration.ofMinutes(30);

  private final MoveCopier copier;
  private final SimpleInboundEventSource<VolumeMove> wakeUps =
      new SimpleInboundEventSource<>("move-wake-ups");
  private final Map<String, CompletableFuture<CopiedIn>> calls = new ConcurrentHashMap<>();

  CopyCalls(MoveCopier copier) {
    this.copier = copier;
  }

  /** Wakes a move when its copy ends, or when a copy slot frees on its source node. */
  SimpleInboundEventSource<VolumeMove> wakeUps() {
    return wakeUps;
  }

  MoveCopier copier() {
    return copier;
  }

  /**
   * The copy's result once it ended, empty while it runs; starts it when none is in flight. A
   * success is kept until {@link #forget} (a later step reads its size again); a failure is handed
   * out once, so that the next call asks again.
   */
  Optional<CompletableFuture<CopiedIn>> copy(
      ResourceID move, String uid, DriverEndpoint target, MoveCopier.CopyIn request) {
    CompletableFuture<CopiedIn> call = calls.get(uid);
    if (call == null) {
      CompletableFuture<CopiedIn> started = copier.copyIn(target, request, TIMEOUT);
      calls.put(uid, started);
      started.whenComplete((result, error) -> wakeUps.propagateEvent(move));
      return started.isDone() ? copy(move, uid, target, request) : Optional.empty();
    }
    if (!call.isDone()) {
      return Optional.empty();
    }
    if (call.isCompletedExceptionally()) {
      calls.remove(uid);
    }
    return Optional.of(call);
  }

  /** The successful copy of a move this process holds, if any. */
  Optional<CopiedIn> copied(String uid) {
    CompletableFuture<CopiedIn> call = calls.get(uid);
    return call != null && call.isDone() && !call.isCompletedExceptionally()
        ? Optional.of(call.join())
        : Optional.empty();
  }

  /** Whether a copy of the move runs in this process. */
  boolean running(String uid) {
    CompletableFuture<CopiedIn> call = calls.get(uid);
    return call != null && !call.isDone();
  }

  /** Forgets a move's copy (it ended or was given up). */
  void forget(String uid) {
    calls.remove(uid);
  }
}
