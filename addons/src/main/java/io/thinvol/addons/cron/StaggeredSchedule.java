package io.thinvol.addons.cron;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/** A cron schedule whose every run is shifted by one object's stagger offset. */
public record StaggeredSchedule(CronSchedule cron, Duration offset) {

  public static StaggeredSchedule of(
      CronSchedule cron, String uid, Duration window, Instant around) {
    return new StaggeredSchedule(cron, Stagger.offset(uid, cron.interval(around), window));
  }

  /** The first run strictly after {@code after}. */
  public Optional<Instant> next(Instant after) {
    return cron.next(after.minus(offset)).map(t -> t.plus(offset));
  }

  /** The latest run at or before {@code atOrBefore}. */
  public Optional<Instant> last(Instant atOrBefore) {
    return cron.last(atOrBefore.minus(offset)).map(t -> t.plus(offset));
  }
}
