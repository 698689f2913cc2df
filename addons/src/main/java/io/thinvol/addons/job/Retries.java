package io.thinvol.addons.job;

import io.thinvol.addons.AddonsSettings;
import io.thinvol.api.v1alpha1.ReclaimSpaceJobSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * Whether a job whose attempt failed tries again, and when: within {@code backOffLimit} retries,
 * and no retry starting later than {@code retryDeadlineSeconds} after the job started.
 */
final class Retries {

  private Retries() {}

  sealed interface Decision permits Again, GiveUp {}

  /** Retry number {@code retry} starts at {@code at}, {@code delay} from now. */
  record Again(int retry, Duration delay, Instant at) implements Decision {}

  record GiveUp(String reason, String message) implements Decision {}

  static Decision decide(
      ReclaimSpaceJobSpec spec,
      int retries,
      Instant start,
      Instant now,
      AddonsSettings settings,
      String lastError) {
    int limit = Optional.ofNullable(spec.getBackOffLimit()).orElse(6);
    if (retries >= limit) {
      return new GiveUp(
          "BackoffLimitExceeded",
          String.format(
              "gave up after %d attempt(s) (backOffLimit %d); last error: %s",
              retries + 1, limit, lastError));
    }
    Duration delay = settings.backoff(retries + 1);
    Instant next = now.plus(delay);
    Instant deadline =
        start.plusSeconds(Optional.ofNullable(spec.getRetryDeadlineSeconds()).orElse(600L));
    if (next.isAfter(deadline)) {
      return new GiveUp(
          "DeadlineExceeded",
          String.format(
              "no retry starts later than %s (retryDeadlineSeconds after the start); last error:"
                  + " %s",
              deadline, lastError));
    }
    return new Again(retries + 1, delay, next);
  }
}
