package io.thinvol.driver.csi;

import io.grpc.stub.ServerCallStreamObserver;
import io.thinvol.peer.v1.Heartbeat;
import io.thinvol.peer.v1.PullChunk;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The call a {@link PullStream} sends on, from its own thread: a wait until the transport takes
 * more (gRPC's onReady), the parts, the end. Asked for heartbeats, it sends one whenever nothing
 * was sent for that long while the stream works (finding the changed ranges, reading the digest),
 * but never before the header (which tells the peer to expect them), after the end, or while the
 * stream waits for the peer to take what was sent (that silence is the peer's): the peer then knows
 * a silence far longer than the interval for a stall.
 */
final class PullCall implements AutoCloseable {

  /**
   * How long a wait for the transport lasts before its readiness is looked at again, whether or not
   * gRPC's onReady came: a wake-up that never comes delays the copy by this, and stalls nothing.
   */
  static final long READY_RECHECK_MILLIS = 1_000;

  /** A wait for the peer to take more this long is logged, once: a copy held back, and by whom. */
  private static final long LOGGED_WAIT_NANOS = TimeUnit.SECONDS.toNanos(60);

  private static final PullChunk HEARTBEAT =
      PullChunk.newBuilder().setHeartbeat(Heartbeat.getDefaultInstance()).build();
  private static final ScheduledExecutorService BEATS =
      Executors.newSingleThreadScheduledExecutor(
          runnable -> {
            Thread thread = new Thread(runnable, "peer-copy-heartbeat");
            thread.setDaemon(true);
            return thread;
          });
  private static final Logger log = LoggerFactory.getLogger(PullCall.class);

  private final ServerCallStreamObserver<PullChunk> call;
  private final Duration heartbeat;
  private final Object readiness = new Object();
  // Held by whoever sends on the call: the stream's thread, or a heartbeat.
  private final Object sending = new Object();
  private volatile boolean cancelled;
  private volatile boolean awaitingTransport;
  private boolean started;
  private boolean ended;
  private long lastSent;
  private ScheduledFuture<?> beats;

  /**
   * Registers its handlers: on the calling (handler) thread, as gRPC requires.
   *
   * @param inFlight the bytes handed to the transport at most before a wait
   * @param heartbeat the longest silence while the stream works; zero: no heartbeats
   */
  PullCall(ServerCallStreamObserver<PullChunk> call, int inFlight, Duration heartbeat) {
    this.call = call;
    this.heartbeat = heartbeat;
    call.setOnReadyThreshold(inFlight);
    call.setOnReadyHandler(this::wake);
    call.setOnCancelHandler(this::cancel);
  }

  /** The interval of its heartbeats, zero for none: what the header tells the peer. */
  Duration heartbeat() {
    return heartbeat;
  }

  /** From now on, until {@link #close()}, heartbeats fill the silences. */
  void beginHeartbeats() {
    if (!heartbeat.isZero()) {
      long millis = heartbeat.toMillis();
      beats = BEATS.scheduleWithFixedDelay(this::beat, millis, millis, TimeUnit.MILLISECONDS);
    }
  }

  /** Whether the peer went away. */
  boolean cancelled() {
    return cancelled;
  }

  /**
   * Waits until the transport takes more; false once the peer went away.
   *
   * @param sentBytes the bytes sent so far, for the log of a long wait
   */
  boolean awaitReady(long sentBytes) {
    long since = System.nanoTime();
    boolean logged = false;
    synchronized (readiness) {
      awaitingTransport = true;
      try {
        while (!cancelled && !call.isReady()) {
          long waited = System.nanoTime() - since;
          if (!logged && waited > LOGGED_WAIT_NANOS) {
            log.info(
                "the peer has taken nothing for {} s ({} bytes sent so far); waiting for it",
                TimeUnit.NANOSECONDS.toSeconds(waited),
                sentBytes);
            logged = true;
          }
          try {
            readiness.wait(READY_RECHECK_MILLIS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            cancelled = true;
          }
        }
        return !cancelled;
      } finally {
        awaitingTransport = false;
      }
    }
  }

  /** Sends one part: parts leave only through here, so no heartbeat comes between two halves. */
  void send(PullChunk chunk) {
    synchronized (sending) {
      call.onNext(chunk);
      started = true;
      lastSent = System.nanoTime();
    }
  }

  void complete() {
    synchronized (sending) {
      ended = true;
      call.onCompleted();
    }
  }

  /** Ends the call with {@code e}'s status, unless the peer went away. */
  void fail(RuntimeException e) {
    synchronized (sending) {
      ended = true;
      if (!cancelled) {
        Rpc.fail(call, e);
      }
    }
  }

  private void beat() {
    synchronized (sending) {
      if (!started
          || ended
          || cancelled
          || awaitingTransport
          || System.nanoTime() - lastSent < heartbeat.toNanos()
          || !call.isReady()) {
        return;
      }
      try {
        call.onNext(HEARTBEAT);
        lastSent = System.nanoTime();
      } catch (RuntimeException e) {
        log.debug("no heartbeat sent: {}", e.toString());
      }
    }
  }

  private void wake() {
    synchronized (readiness) {
      readiness.notifyAll();
    }
  }

  private void cancel() {
    cancelled = true;
    wake();
  }

  /** No more heartbeats. */
  @Override
  public void close() {
    if (beats != null) {
      beats.cancel(false);
    }
  }
}
