package io.thinvol.e2e.support;

import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.operator.monitoring.AlertRules;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The alert rules the operator puts in its PrometheusRules ({@link AlertRules}), as the suite's
 * Prometheus loads them, and the ones among them that say a data dir is filling up.
 */
public final class ThinvolRules {

  private static final Pattern DURATION_PART = Pattern.compile("(\\d+)(ms|s|m|h|d|w|y)");

  /** An alerting rule: its name, expression and {@code for} (zero when it has none). */
  public record Alert(String name, String expression, Duration pendingFor) {}

  private ThinvolRules() {}

  /** The rule groups of one backend and the operator's, as two PrometheusRules would hold them. */
  public static List<Map<String, Object>> groups(StorageBackend backend) {
    List<Map<String, Object>> groups = new ArrayList<>(AlertRules.groups(backend));
    groups.addAll(AlertRules.operatorGroups());
    return groups;
  }

  /**
   * The alerts about a data dir's filesystem running out of space: those on {@code
   * thinvol_data_dir_full} or on the data dir's available bytes, except the predictions ({@code
   * predict_linear}), which a sudden fill need not trip.
   */
  public static List<Alert> fillAlerts(List<Map<String, Object>> groups) {
    return alerts(groups).stream()
        .filter(
            a ->
                a.expression().contains("thinvol_data_dir_full")
                    || a.expression().contains("thinvol_data_dir_available_bytes"))
        .filter(a -> !a.expression().contains("predict_linear"))
        .toList();
  }

  /** The alerting rules of the groups (not the recording rules). */
  @SuppressWarnings("unchecked")
  public static List<Alert> alerts(List<Map<String, Object>> groups) {
    return groups.stream()
        .flatMap(g -> ((List<Map<String, Object>>) g.getOrDefault("rules", List.of())).stream())
        .filter(rule -> rule.containsKey("alert"))
        .map(
            rule ->
                new Alert(
                    String.valueOf(rule.get("alert")),
                    String.valueOf(rule.get("expr")),
                    duration(String.valueOf(rule.getOrDefault("for", "0s")))))
        .toList();
  }

  /** A Prometheus duration such as {@code 90s}, {@code 10m} or {@code 1h30m}. */
  static Duration duration(String text) {
    Matcher part = DURATION_PART.matcher(text);
    Duration total = Duration.ZERO;
    int end = 0;
    while (part.find() && part.start() == end) {
      long amount = Long.parseLong(part.group(1));
      total =
          total.plus(
              switch (part.group(2)) {
                case "ms" -> Duration.ofMillis(amount);
                case "s" -> Duration.ofSeconds(amount);
                case "m" -> Duration.ofMinutes(amount);
                case "h" -> Duration.ofHours(amount);
                case "d" -> Duration.ofDays(amount);
                case "w" -> Duration.ofDays(7 * amount);
                default -> Duration.ofDays(365 * amount);
              });
      end = part.end();
    }
    if (end != text.length()) {
      throw new IllegalArgumentException("not a Prometheus duration: " + text);
    }
    return total;
  }
}
