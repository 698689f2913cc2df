package io.thinvol.operator.move;

import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.inbound.SimpleInboundEventSource;
import io.thinvol.addons.call.MoveCopier;
import io.thinvol.addons.call.MoveCopier.CopiedIn;
import io.thinvol.addons.call.MoveCopier.Taken;
import io.thinvol.addons.resolve.DriverEndpoint;
import io.thinvol.api.v1alpha1.VolumeMove;
import io.thinvol.operator.transfer.InFlightCalls;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * The cut-over's driver calls in flight (S2 on the source node, the copy on the target), by move
 * uid, held in {@link InFlightCalls} as a replication's syncs are.
 */
final class CopyCalls {

  /** A call may take this long: the driver copies a whole image, or pulls the changed blocks. */
  static final Duration TIMEOUT = Duration.ofMinutes(30);

  private static final String SNAPSHOT = "/snapshot";
  private static final String COPY = "/copy";

  /** Apart from the cut-over's calls, which a rollback gives up and forgets. */
  private static final String ASKED_AGAIN = "asked-again/";

  private final MoveCopier copier;
  private final InFlightCalls<VolumeMove> calls = new InFlightCalls<>("move-wake-ups");

  CopyCalls(MoveCopier copier) {
    this.copier = copier;
  }

  /** Wakes a move when a call of it ends, or when a copy slot frees on its source node. */
  SimpleInboundEventSource<VolumeMove> wakeUps() {
    return calls.wakeUps();
  }

  MoveCopier copier() {
    return copier;
  }

  /** The cut-over snapshot's call, as {@link InFlightCalls#call}. */
  Optional<CompletableFuture<Taken>> snapshot(
      ResourceID move, String uid, Supplier<CompletableFuture<Taken>> start) {
    return calls.call(move, uid + SNAPSHOT, start);
  }

  /** The copy's call (or a failover's promotion), as {@link InFlightCalls#call}. */
  Optional<CompletableFuture<CopiedIn>> copy(
      ResourceID move, String uid, Supplier<CompletableFuture<CopiedIn>> start) {
    return calls.call(move, uid + COPY, start);
  }

  /**
   * A rollback's question to the target for the cut-over's copy ({@link KeptCopy}), as {@link
   * InFlightCalls#call}.
   */
  Optional<CompletableFuture<CopiedIn>> askAgain(
      ResourceID move, String uid, DriverEndpoint target, MoveCopier.CopyIn request) {
    return calls.call(move, ASKED_AGAIN + uid, () -> copier.copyIn(target, request, TIMEOUT));
  }

  /** Forgets the rollback's question once its answer is recorded. */
  void answered(String uid) {
    calls.forget(ASKED_AGAIN + uid);
  }

  /** The successful copy of a move this process holds, if any. */
  Optional<CopiedIn> copied(String uid) {
    return calls.succeeded(uid + COPY);
  }

  /** The call of the move that runs in this process, said for its status, if one does. */
  Optional<String> inFlight(String uid) {
    if (calls.runs(uid + SNAPSHOT)) {
      return Optional.of("the cut-over snapshot the source node's driver is taking");
    }
    return calls.runs(uid + COPY) ? Optional.of("the copy to the target node") : Optional.empty();
  }

  /**
   * Gives up the move's calls in flight (their node is lost, or NotReady past the deadline): they
   * end at once, cancelled, and what they may have made is dropped by name as after a restart.
   */
  void cancel(String uid) {
    calls.cancel(uid + "/");
  }

  /** Forgets a move's calls (they ended or were given up). */
  void forget(String uid) {
    calls.forget(uid + "/");
  }
}
