package io.thinvol.addons.cron;

import com.cronutils.model.CronType;
import com.cronutils.model.definition.CronDefinitionBuilder;
import com.cronutils.model.time.ExecutionTime;
import com.cronutils.parser.CronParser;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.Optional;

/**
 * A cron schedule as Kubernetes CronJobs and CSI-Addons read it: 5 fields (minute, hour, day of
 * month, month, day of week) or one of the @-macros, in UTC.
 */
public final class CronSchedule {

  private static final CronParser PARSER =
      new CronParser(CronDefinitionBuilder.instanceDefinitionFor(CronType.UNIX));

  private static final Map<String, String> MACROS =
      Map.of(
          "@yearly", "0 0 1 1 *",
          "@annually", "0 0 1 1 *",
          "@monthly", "0 0 1 * *",
          "@weekly", "0 0 * * 0",
          "@daily", "0 0 * * *",
          "@midnight", "0 0 * * *",
          "@hourly", "0 * * * *");

  private final String text;
  private final ExecutionTime times;

  private CronSchedule(String text, ExecutionTime times) {
    this.text = text;
    this.times = times;
  }

  /**
   * @throws IllegalArgumentException with a message a person can act on
   */
  public static CronSchedule parse(String text) {
    if (text == null || text.isBlank()) {
      throw new IllegalArgumentException("the schedule is empty");
    }
    String trimmed = text.trim();
    String expression = MACROS.getOrDefault(trimmed, trimmed);
    if (expression.startsWith("@")) {
      throw new IllegalArgumentException(
          "unknown macro "
              + trimmed
              + "; use @yearly, @monthly, @weekly, @daily, @hourly or 5 cron fields");
    }
    if (expression.split("\\s+").length != 5) {
      throw new IllegalArgumentException(
          "\"" + trimmed + "\" is not 5 cron fields (minute hour day-of-month month day-of-week)");
    }
    try {
      return new CronSchedule(trimmed, ExecutionTime.forCron(PARSER.parse(expression)));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "\"" + trimmed + "\" is not a valid cron schedule: " + e.getMessage(), e);
    }
  }

  /** The first time strictly after {@code after}. */
  public Optional<Instant> next(Instant after) {
    return times.nextExecution(after.atZone(ZoneOffset.UTC)).map(t -> t.toInstant());
  }

  /** The latest time at or before {@code atOrBefore}. */
  public Optional<Instant> last(Instant atOrBefore) {
    return times
        .lastExecution(atOrBefore.plusNanos(1).atZone(ZoneOffset.UTC))
        .map(t -> t.toInstant());
  }

  /** The gap between two runs following {@code after} (the schedule's period there). */
  public Duration interval(Instant after) {
    Optional<Instant> first = next(after);
    Optional<Instant> second = first.flatMap(this::next);
    return first.isPresent() && second.isPresent()
        ? Duration.between(first.get(), second.get())
        : Duration.ZERO;
  }

  @Override
  public String toString() {
    return text;
  }
}
