package io.thinvol.addons;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.RejectedExecutionHandler;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records Events off the reconcile threads: an Event is a request to the API server, and a
 * reconcile that waits for it holds back the next job. One thread records them in the order they
 * were queued, so an object's Events keep their order. None is dropped: a full queue makes the
 * caller wait, a closed one records on the caller's thread, and closing waits for the queue to
 * drain, logging how many Events it could not record in time.
 */
public final class EventQueue implements AutoCloseable {

  static final int CAPACITY = 1024;
  static final Duration FLUSH_TIMEOUT = Duration.ofSeconds(10);

  private static final Logger log = LoggerFactory.getLogger(EventQueue.class);

  private final ThreadPoolExecutor recorder;
  private final Duration flushTimeout;

  public EventQueue() {
    this(CAPACITY, FLUSH_TIMEOUT);
  }

  EventQueue(int capacity, Duration flushTimeout) {
    this.flushTimeout = flushTimeout;
    this.recorder =
        new ThreadPoolExecutor(
            1,
            1,
            0,
            TimeUnit.SECONDS,
            new ArrayBlockingQueue<>(capacity),
            runnable -> {
              Thread thread = new Thread(runnable, "event-recorder");
              thread.setDaemon(true);
              return thread;
            },
            waitOrRecordHere());
  }

  /** Queues the recording of one or more Events, which runs after every one queued before. */
  public void post(Runnable record) {
    recorder.execute(() -> recordSafely(record));
  }

  /** Waits until the Events queued so far are recorded, or the flush timeout passes. */
  @Override
  public void close() {
    recorder.shutdown();
    try {
      if (recorder.awaitTermination(flushTimeout.toMillis(), TimeUnit.MILLISECONDS)) {
        return;
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    List<Runnable> left = recorder.shutdownNow();
    log.warn(
        "{} Events not recorded: the API server did not take them within {} of shutting down",
        left.size(),
        flushTimeout);
  }

  private static void recordSafely(Runnable record) {
    try {
      record.run();
    } catch (RuntimeException e) {
      // An Event is a courtesy: one that cannot be recorded must not stop the ones after it.
      log.warn("cannot record an Event: {}", e.toString());
    }
  }

  /**
   * A full queue makes the caller wait for room, rather than drop the Event or record it ahead of
   * those queued; once closed, Events are recorded on the caller's thread.
   */
  private static RejectedExecutionHandler waitOrRecordHere() {
    return (task, executor) -> {
      if (executor.isShutdown()) {
        task.run();
        return;
      }
      try {
        executor.getQueue().put(task);
        if (executor.isShutdown() && executor.remove(task)) {
          task.run(); // closed while this waited: no worker will take it
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        task.run();
      }
    };
  }
}
