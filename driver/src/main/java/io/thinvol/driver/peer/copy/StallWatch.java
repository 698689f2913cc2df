package io.thinvol.driver.peer.copy;

import io.grpc.Context;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Gives a pull up when its sender goes silent: a sender that promised heartbeats sends something at
 * least that often while it works, so a puller that waits {@value #MISSED_BEATS} intervals for the
 * next part has a transfer that stalled (a sender stuck, a connection that carries nothing), not a
 * slow one. The pull's context is then cancelled, which ends the wait for the next part; a stalled
 * copy must fail, so that its caller retries, rather than wait for the call's deadline. Only the
 * puller's waits count: while it writes, or copies its base before reading, the sender is held back
 * by flow control and owes it nothing.
 */
final class StallWatch implements AutoCloseable {

  /** Heartbeats missed in a row before the pull is given up. */
  static final int MISSED_BEATS = 6;

  private static final ScheduledExecutorService TICKS =
      Executors.newSingleThreadScheduledExecutor(
          runnable -> {
            Thread thread = new Thread(runnable, "peer-copy-stall-watch");
            thread.setDaemon(true);
            return thread;
          });

  private final Context.CancellableContext pull;
  private final long limitNanos;
  private final ScheduledFuture<?> ticks;
  private volatile boolean waiting;
  private volatile long waitingSince;
  private volatile boolean stalled;

  /**
   * @param heartbeat the sender's heartbeat interval; zero when it sends none (nothing is watched)
   */
  StallWatch(Context.CancellableContext pull, Duration heartbeat) {
    this.pull = pull;
    this.limitNanos = heartbeat.multipliedBy(MISSED_BEATS).toNanos();
    long period = Math.max(100, heartbeat.toMillis() / 2);
    this.ticks =
        heartbeat.isZero()
            ? null
            : TICKS.scheduleWithFixedDelay(this::check, period, period, TimeUnit.MILLISECONDS);
  }

  /** How long the puller waits for a part before it gives up; zero: for ever. */
  Duration limit() {
    return Duration.ofNanos(limitNanos);
  }

  /** The puller waits for the next part from now. */
  void waiting() {
    waitingSince = System.nanoTime();
    waiting = true;
  }

  /** A part (or a heartbeat) arrived, or the wait ended otherwise. */
  void arrived() {
    waiting = false;
  }

  /** Whether the pull was given up for its silence. */
  boolean stalled() {
    return stalled;
  }

  private void check() {
    if (waiting && System.nanoTime() - waitingSince > limitNanos) {
      stalled = true;
      pull.cancel(null);
    }
  }

  @Override
  public void close() {
    if (ticks != null) {
      ticks.cancel(false);
    }
    pull.cancel(null);
  }
}
