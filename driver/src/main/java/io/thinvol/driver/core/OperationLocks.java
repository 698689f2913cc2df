package io.thinvol.driver.core;

import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One lock per volume, snapshot or name. A second call for a key that is busy gets {@code ABORTED}
 * (the spec's "operation pending"), or waits a bounded time where waiting gives the caller a better
 * answer. Entries exist only while someone holds or waits for them.
 */
public final class OperationLocks {

  private final ConcurrentMap<String, Entry> entries = new ConcurrentHashMap<>();

  /** A held lock; closing it releases it. */
  public interface Held extends AutoCloseable {
    @Override
    void close();
  }

  private static final class Entry {
    final ReentrantLock lock = new ReentrantLock();
    int users;
  }

  /** Takes the lock for {@code key} or fails at once with ABORTED naming {@code what}. */
  public Held tryAcquire(String key, String what) {
    return acquire(key, what, Duration.ZERO);
  }

  /** Takes the lock for {@code key}, waiting up to {@code wait}; then fails with ABORTED. */
  public Held acquire(String key, String what, Duration wait) {
    Entry entry = entries.compute(key, (k, e) -> join(e));
    boolean locked;
    try {
      locked =
          wait.isZero()
              ? entry.lock.tryLock()
              : entry.lock.tryLock(wait.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      locked = false;
    }
    if (!locked) {
      leave(key);
      throw CsiException.aborted(
          "another operation on %s is in progress; retry when it has finished", what);
    }
    return () -> {
      entry.lock.unlock();
      leave(key);
    };
  }

  /** How many keys are currently held or awaited (for tests and metrics). */
  public int activeKeys() {
    return entries.size();
  }

  private static Entry join(Entry existing) {
    Entry entry = existing == null ? new Entry() : existing;
    entry.users++;
    return entry;
  }

  private void leave(String key) {
    entries.computeIfPresent(key, (k, e) -> --e.users == 0 ? null : e);
  }
}
