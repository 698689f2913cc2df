package io.thinvol.api;

import java.time.Duration;

/**
 * Durations as people write them in Kubernetes ({@code 5s}, {@code 2m}, {@code 1h30m}), for status
 * messages and Events: never ISO-8601 ({@code PT5S}), which few readers parse at a glance.
 */
public final class Durations {

  private Durations() {}

  /** Hours, minutes and seconds without zero parts; below a second, milliseconds. */
  public static String text(Duration duration) {
    if (duration.isNegative()) {
      return "-" + text(duration.negated());
    }
    if (duration.isZero()) {
      return "0s";
    }
    if (duration.compareTo(Duration.ofSeconds(1)) < 0) {
      return duration.toMillis() + "ms";
    }
    StringBuilder text = new StringBuilder();
    append(text, duration.toHours(), "h");
    append(text, duration.toMinutesPart(), "m");
    int seconds = duration.toSecondsPart();
    int millis = duration.toMillisPart();
    if (millis > 0) {
      text.append(seconds).append('.').append(String.format("%03d", millis).replaceAll("0+$", ""));
      text.append('s');
    } else {
      append(text, seconds, "s");
    }
    return text.toString();
  }

  private static void append(StringBuilder text, long amount, String unit) {
    if (amount > 0) {
      text.append(amount).append(unit);
    }
  }
}
