package io.thinvol.driver.server;

import java.util.concurrent.LinkedTransferQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The threads a gRPC server runs its calls on (host commands block, so calls must not run on
 * Netty's event loop): at most {@code threads}, then up to {@code queued} calls waiting. A call
 * goes to an idle thread when there is one and starts a new thread only when none is idle, so a
 * driver whose calls come one after another keeps one or two threads, not the maximum (a plain
 * fixed-size pool starts a thread for each of its first calls, idle ones or not). Idle threads end
 * after a minute.
 */
final class HandlerPool {

  private static final long KEEP_ALIVE_SECONDS = 60;

  private HandlerPool() {}

  static ThreadPoolExecutor create(String name, int threads, int queued) {
    AtomicInteger count = new AtomicInteger();
    HandOff queue = new HandOff(queued);
    return new ThreadPoolExecutor(
        0,
        threads,
        KEEP_ALIVE_SECONDS,
        TimeUnit.SECONDS,
        queue,
        runnable -> {
          Thread thread = new Thread(runnable, name + "-" + count.incrementAndGet());
          thread.setDaemon(true);
          return thread;
        },
        (runnable, pool) -> {
          // Every thread is busy: the call waits for one, if there is room.
          if (pool.isShutdown() || !queue.enqueue(runnable)) {
            throw new RejectedExecutionException(
                "all " + threads + " " + name + " threads busy and " + queued + " calls waiting");
          }
        });
  }

  /**
   * The executor offers each call here first: taken only by a thread waiting for work, refused
   * otherwise (the executor then starts a thread, or, at its maximum, queues the call).
   */
  private static final class HandOff extends LinkedTransferQueue<Runnable> {

    private final int capacity;

    HandOff(int capacity) {
      this.capacity = capacity;
    }

    @Override
    public boolean offer(Runnable runnable) {
      return tryTransfer(runnable);
    }

    boolean enqueue(Runnable runnable) {
      return size() < capacity && super.offer(runnable);
    }
  }
}
