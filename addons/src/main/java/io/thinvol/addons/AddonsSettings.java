package io.thinvol.addons;

import java.time.Duration;

/**
 * How the addons behave.
 *
 * @param namespace the operator's namespace, where the driver pods and their Secrets are
 * @param firstBackoff the wait after the first failed attempt; it doubles with each retry
 * @param maxBackoff the longest wait between attempts
 * @param staggerWindow the most a scheduled run is shifted (less for schedules more frequent)
 */
public record AddonsSettings(
    String namespace, Duration firstBackoff, Duration maxBackoff, Duration staggerWindow) {

  public static AddonsSettings defaults(String namespace) {
    return new AddonsSettings(
        namespace, Duration.ofSeconds(5), Duration.ofMinutes(5), Duration.ofHours(2));
  }

  /** The wait after {@code failures} failed attempts (1 or more). */
  public Duration backoff(int failures) {
    Duration delay = firstBackoff;
    for (int i = 1; i < failures && delay.compareTo(maxBackoff) < 0; i++) {
      delay = delay.multipliedBy(2);
    }
    return delay.compareTo(maxBackoff) > 0 ? maxBackoff : delay;
  }
}
