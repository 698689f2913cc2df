package io.thinvol.driver.host;

import com.sun.jna.LastErrorException;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs {@link HostCall}s with a deadline. A system call cannot be killed the way a program can: one
 * blocked in the kernel (a trim, a freeze, an unmount of a hung filesystem) returns when the kernel
 * is done. So each call runs on a worker thread and its caller waits at most its timeout; a call
 * that finishes after that is undone by its {@link HostCall#undo()}, and the number of workers is
 * bounded so that calls stuck in the kernel cannot pile up threads without end.
 */
final class SystemCalls {

  private static final Logger log = LoggerFactory.getLogger(SystemCalls.class);

  /** More than the driver ever runs at once (calls are serialised per volume). */
  static final int MAX_WORKERS = 32;

  private static final ThreadPoolExecutor WORKERS =
      new ThreadPoolExecutor(
          0,
          MAX_WORKERS,
          30,
          TimeUnit.SECONDS,
          new SynchronousQueue<>(),
          runnable -> {
            Thread thread = new Thread(runnable, "host-call");
            thread.setDaemon(true);
            return thread;
          });

  /** Not yet begun by its worker: a call abandoned then is never begun, so nothing waits for it. */
  private static final int WAITING = 0;

  private static final int RUNNING = 1;
  private static final int DONE = 2;
  private static final int ABANDONED = 3;

  private SystemCalls() {}

  static <T> T call(Duration timeout, HostCall<T> call) {
    long start = System.nanoTime();
    AtomicInteger state = new AtomicInteger(WAITING);
    CountDownLatch ended = new CountDownLatch(1);
    Future<T> future;
    try {
      future = WORKERS.submit(() -> runUndoingLate(call, state, ended));
    } catch (RejectedExecutionException e) {
      throw new HostCommandException(
          "cannot start "
              + CommandResult.shown(call.shown())
              + ": "
              + MAX_WORKERS
              + " earlier host calls are still blocked in the kernel (see the kernel log for hung"
              + " tasks)",
          e);
    }
    try {
      T result = await(future, timeout, state, call.stoppable() ? ended : null);
      log.debug(
          "{} done in {} µs",
          CommandResult.shown(call.shown()),
          (System.nanoTime() - start) / 1_000);
      return result;
    } catch (TimeoutException e) {
      throw HostCommandException.timedOut(
          CommandResult.shown(call.shown())
              + " did not finish within "
              + timeout.toSeconds()
              + "s; it is undone if it still finishes");
    } catch (InterruptedException e) {
      if (abandon(state) != DONE) {
        future.cancel(true);
      }
      Thread.currentThread().interrupt();
      throw new HostCommandException(CommandResult.shown(call.shown()) + " was interrupted", e);
    } catch (CancellationException e) {
      throw new HostCommandException(CommandResult.shown(call.shown()) + " was cancelled", e);
    } catch (ExecutionException e) {
      throw failure(call, e.getCause());
    }
  }

  /**
   * The call's result once it ends, or a timeout once the deadline has passed; a call that has
   * ended by the time the deadline is noticed counts as done, so a result is never both returned
   * and undone.
   */
  private static <T> T await(
      Future<T> future, Duration timeout, AtomicInteger state, CountDownLatch stopped)
      throws TimeoutException, InterruptedException, ExecutionException {
    try {
      return future.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      int was = abandon(state);
      if (was == DONE) {
        return future.get();
      }
      future.cancel(true); // interrupts what can be interrupted; the kernel finishes the rest
      if (was == RUNNING && stopped != null) {
        stopped.await(); // a stoppable call ends at its next system call
      }
      throw e;
    }
  }

  /** Marks a call its caller gave up on, unless it is done; returns the state it had. */
  private static int abandon(AtomicInteger state) {
    while (true) {
      int was = state.get();
      if (was == DONE || state.compareAndSet(was, ABANDONED)) {
        return was;
      }
    }
  }

  private static <T> T runUndoingLate(HostCall<T> call, AtomicInteger state, CountDownLatch ended)
      throws Exception {
    try {
      if (!state.compareAndSet(WAITING, RUNNING)) {
        return null; // abandoned before it began: never begun
      }
      T result = call.work().run();
      if (!state.compareAndSet(RUNNING, DONE)) {
        undo(call, result);
      }
      return result;
    } finally {
      ended.countDown();
    }
  }

  private static <T> void undo(HostCall<T> call, T result) {
    log.warn("{} finished after its caller gave up; undoing it", CommandResult.shown(call.shown()));
    try {
      call.undo().accept(result);
    } catch (RuntimeException e) {
      log.error("cannot undo {}: {}", CommandResult.shown(call.shown()), e.getMessage());
    }
  }

  private static HostCommandException failure(HostCall<?> call, Throwable cause) {
    if (cause instanceof LastErrorException errno) {
      return Errno.failure(call, errno);
    }
    if (cause instanceof Errno.On errno) {
      return Errno.failure(call, errno);
    }
    if (cause instanceof HostCommandException host) {
      return host;
    }
    if (cause instanceof IOException io) {
      return new HostCommandException(
          CommandResult.shown(call.shown()) + " failed: " + io.getMessage(), io);
    }
    return new HostCommandException(
        CommandResult.shown(call.shown()) + " failed unexpectedly: " + cause, cause);
  }
}
