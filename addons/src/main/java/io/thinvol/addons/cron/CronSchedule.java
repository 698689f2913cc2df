package io.thinvol.addons.cron;

import com.cronutils.model.CronType;
import com.cronutils.model.definition.CronDefinitionBuilder;
import com.cronutils.model.time.ExecutionTime;
import com.cronutils.parser.CronParser;
import java.math.BigDecimal;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A schedule as CSI-Addons reads it (robfig/cron's standard parser): 5 fields (minute, hour, day of
 * month, month, day of week) or one of the @-macros, in UTC unless prefixed by {@code
 * CRON_TZ=<zone>} (or {@code TZ=<zone>}); or {@code @every <duration>} (Go's duration syntax, at
 * least 1m), whose runs fall on multiples of the duration since 1970-01-01T00:00Z, so a restart
 * does not move them.
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

  private static final Pattern ZONE_PREFIX = Pattern.compile("^(?:CRON_TZ|TZ)=(\\S+)\\s+(.*)$");
  private static final Pattern EVERY = Pattern.compile("^@every\\s+(\\S+)$");
  private static final Pattern GO_DURATION_PART =
      Pattern.compile("(\\d+(?:\\.\\d+)?)(ns|us|µs|ms|s|m|h)");
  static final Duration SHORTEST_EVERY = Duration.ofMinutes(1);

  private final String text;
  private final ZoneId zone;
  private final ExecutionTime times; // null for @every
  private final Duration every; // null for a cron expression

  private CronSchedule(String text, ZoneId zone, ExecutionTime times, Duration every) {
    this.text = text;
    this.zone = zone;
    this.times = times;
    this.every = every;
  }

  /**
   * @throws IllegalArgumentException with a message a person can act on
   */
  public static CronSchedule parse(String text) {
    if (text == null || text.isBlank()) {
      throw new IllegalArgumentException("the schedule is empty");
    }
    String trimmed = text.trim();
    String rest = trimmed;
    ZoneId zone = ZoneOffset.UTC;
    Matcher prefixed = ZONE_PREFIX.matcher(trimmed);
    if (prefixed.matches()) {
      try {
        zone = ZoneId.of(prefixed.group(1));
      } catch (DateTimeException e) {
        throw new IllegalArgumentException(
            "unknown time zone "
                + prefixed.group(1)
                + " in \""
                + trimmed
                + "\"; use an IANA name such as Europe/Paris",
            e);
      }
      rest = prefixed.group(2).trim();
    }
    Matcher everyMatch = EVERY.matcher(rest);
    if (everyMatch.matches()) {
      return new CronSchedule(trimmed, zone, null, every(everyMatch.group(1), trimmed));
    }
    String expression = MACROS.getOrDefault(rest, rest);
    if (expression.startsWith("@")) {
      throw new IllegalArgumentException(
          "unknown macro "
              + rest
              + "; use @yearly, @monthly, @weekly, @daily, @hourly, @every <duration> or 5 cron"
              + " fields");
    }
    if (expression.split("\\s+").length != 5) {
      throw new IllegalArgumentException(
          "\"" + trimmed + "\" is not 5 cron fields (minute hour day-of-month month day-of-week)");
    }
    try {
      return new CronSchedule(trimmed, zone, ExecutionTime.forCron(PARSER.parse(expression)), null);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "\"" + trimmed + "\" is not a valid cron schedule: " + e.getMessage(), e);
    }
  }

  /** Go's time.ParseDuration syntax (1h30m, 90m, 1.5h), whole seconds, at least a minute. */
  private static Duration every(String text, String schedule) {
    Matcher part = GO_DURATION_PART.matcher(text);
    BigDecimal nanos = BigDecimal.ZERO;
    int end = 0;
    while (part.lookingAt()) {
      BigDecimal unit =
          switch (part.group(2)) {
            case "ns" -> BigDecimal.ONE;
            case "us", "µs" -> BigDecimal.valueOf(1_000L);
            case "ms" -> BigDecimal.valueOf(1_000_000L);
            case "s" -> BigDecimal.valueOf(1_000_000_000L);
            case "m" -> BigDecimal.valueOf(60_000_000_000L);
            default -> BigDecimal.valueOf(3_600_000_000_000L);
          };
      nanos = nanos.add(new BigDecimal(part.group(1)).multiply(unit));
      end = part.end();
      part.region(end, text.length());
    }
    if (end == 0 || end != text.length()) {
      throw new IllegalArgumentException(
          "\"" + schedule + "\": " + text + " is not a duration; write it as 90m, 1h30m or 12h");
    }
    Duration duration =
        Duration.ofSeconds(nanos.divide(BigDecimal.valueOf(1_000_000_000L)).longValue());
    if (duration.compareTo(SHORTEST_EVERY) < 0) {
      throw new IllegalArgumentException(
          "\"" + schedule + "\": runs more often than every minute are refused");
    }
    return duration;
  }

  /** The first time strictly after {@code after}. */
  public Optional<Instant> next(Instant after) {
    if (every != null) {
      long period = every.getSeconds();
      return Optional.of(
          Instant.ofEpochSecond(Math.floorDiv(after.getEpochSecond(), period) * period + period));
    }
    return times.nextExecution(after.atZone(zone)).map(t -> t.toInstant());
  }

  /** The latest time at or before {@code atOrBefore}. */
  public Optional<Instant> last(Instant atOrBefore) {
    if (every != null) {
      long period = every.getSeconds();
      return Optional.of(
          Instant.ofEpochSecond(Math.floorDiv(atOrBefore.getEpochSecond(), period) * period));
    }
    return times.lastExecution(atOrBefore.plusNanos(1).atZone(zone)).map(t -> t.toInstant());
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
