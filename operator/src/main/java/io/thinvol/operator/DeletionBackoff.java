package io.thinvol.operator;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * How long a blocked deletion waits before it looks again, per backend: from {@link #FIRST}
 * doubling to {@link #LONGEST}. The claim and volume caches wake it as soon as one goes; the timer
 * only covers what they cannot see.
 */
final class DeletionBackoff {

  static final Duration FIRST = Duration.ofSeconds(10);
  static final Duration LONGEST = Duration.ofMinutes(5);

  private final Map<String, Duration> waits = new ConcurrentHashMap<>();

  /** The next wait of the backend with this uid. */
  Duration next(String uid) {
    return waits.compute(
        uid, (key, last) -> last == null ? FIRST : min(last.multipliedBy(2), LONGEST));
  }

  /** The backend is gone, or what blocks it changed: the next wait is the first again. */
  void reset(String uid) {
    waits.remove(uid);
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) <= 0 ? a : b;
  }
}
