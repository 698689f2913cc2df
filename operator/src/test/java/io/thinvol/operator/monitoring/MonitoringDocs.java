package io.thinvol.operator.monitoring;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * docs/monitoring.md as the tests read it: its metric tables are the one list of names the rules
 * and the dashboard may use, and its headings are the runbooks' anchors.
 */
final class MonitoringDocs {

  static final Path FILE = Path.of("..", "docs", "monitoring.md");

  private static final Pattern METRIC_ROW =
      Pattern.compile("(?m)^\\| `([a-z_:]+)` \\| (counter|gauge|histogram)[^|]* \\|");
  private static final Pattern HEADING = Pattern.compile("(?m)^#{1,6} (.+)$");
  private static final Pattern IDENTIFIER =
      Pattern.compile("(?<![\\w.])([a-zA-Z_:][a-zA-Z0-9_:]*)\\b(?!\\s*\\()");
  private static final Set<String> KEYWORDS = Set.of("and", "or", "unless", "bool", "offset");
  private static final Set<String> HISTOGRAM_SERIES = Set.of("_bucket", "_sum", "_count");

  private final String text;

  private MonitoringDocs(String text) {
    this.text = text;
  }

  static MonitoringDocs read() {
    try {
      return new MonitoringDocs(Files.readString(FILE));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Every documented metric and its type. */
  Map<String, String> metrics() {
    Map<String, String> metrics = new LinkedHashMap<>();
    Matcher matcher = METRIC_ROW.matcher(text);
    while (matcher.find()) {
      metrics.put(matcher.group(1), matcher.group(2));
    }
    return metrics;
  }

  /** Whether {@code series} is a documented metric, or a series of a documented histogram. */
  boolean documents(String series) {
    Map<String, String> metrics = metrics();
    if (metrics.containsKey(series) || series.equals("up")) {
      return true;
    }
    return HISTOGRAM_SERIES.stream()
        .filter(series::endsWith)
        .map(suffix -> series.substring(0, series.length() - suffix.length()))
        .anyMatch(base -> "histogram".equals(metrics.get(base)));
  }

  /** The anchors GitHub gives the headings: lower case, spaces to dashes, punctuation dropped. */
  Set<String> anchors() {
    Set<String> anchors = new LinkedHashSet<>();
    Matcher matcher = HEADING.matcher(text);
    while (matcher.find()) {
      anchors.add(
          matcher
              .group(1)
              .strip()
              .toLowerCase(Locale.ROOT)
              .replaceAll("[^a-z0-9 _-]", "")
              .replace(' ', '-'));
    }
    return anchors;
  }

  /**
   * The metric names in a PromQL expression: what is left of its identifiers once label matchers,
   * ranges, strings, grouping clauses, function names and keywords are taken out.
   */
  static Set<String> seriesIn(String expr) {
    String bare =
        expr.replaceAll("\\{[^}]*}", " ")
            .replaceAll("\\[[^]]*]", " ")
            .replaceAll("\"[^\"]*\"", " ")
            .replaceAll("\\b(by|without|on|ignoring|group_left|group_right)\\s*\\([^)]*\\)", " ");
    Set<String> names = new LinkedHashSet<>();
    Matcher matcher = IDENTIFIER.matcher(bare);
    while (matcher.find()) {
      if (!KEYWORDS.contains(matcher.group(1))) {
        names.add(matcher.group(1));
      }
    }
    return names;
  }
}
