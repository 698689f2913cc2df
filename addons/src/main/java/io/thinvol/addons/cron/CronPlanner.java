package io.thinvol.addons.cron;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * Decides, from the clock alone, whether a run is due: the latest scheduled time after the last one
 * handled, unless it is later than {@code startingDeadlineSeconds} allow. Pure, so the tests drive
 * it with any clock.
 */
public final class CronPlanner {

  /** Missed runs are counted up to here; a schedule that missed more only reports "over". */
  static final int MISSED_COUNT_LIMIT = 100;

  /**
   * @param due the run to start now, if any
   * @param tooLate true when {@code due} is past its starting deadline and must be skipped
   * @param missed runs between the last handled and {@code due} that were never started
   * @param next the run after now
   */
  public record Plan(Optional<Instant> due, boolean tooLate, int missed, Optional<Instant> next) {}

  private CronPlanner() {}

  /**
   * @param since the last run handled, or the object's creation
   * @param startingDeadlineSeconds null for no deadline
   */
  public static Plan plan(
      StaggeredSchedule schedule, Instant since, Instant now, Long startingDeadlineSeconds) {
    Optional<Instant> next = schedule.next(now);
    Optional<Instant> latest = schedule.last(now).filter(t -> t.isAfter(since));
    if (latest.isEmpty()) {
      return new Plan(Optional.empty(), false, 0, next);
    }
    int missed = 0;
    for (Optional<Instant> t = schedule.next(since);
        t.isPresent() && t.get().isBefore(latest.get()) && missed < MISSED_COUNT_LIMIT;
        t = schedule.next(t.get())) {
      missed++;
    }
    boolean tooLate =
        startingDeadlineSeconds != null
            && Duration.between(latest.get(), now).toSeconds() > startingDeadlineSeconds;
    return new Plan(latest, tooLate, missed, next);
  }
}
