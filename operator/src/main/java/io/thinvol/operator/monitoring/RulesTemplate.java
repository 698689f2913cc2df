package io.thinvol.operator.monitoring;

import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A rules file kept as readable YAML in the jar, with {@code ${name}} placeholders for what differs
 * per backend. Prometheus' own templating ({@code {{ $labels.node }}}) has no {@code ${}} and
 * passes through untouched.
 */
final class RulesTemplate {

  private static final Pattern PLACEHOLDER = Pattern.compile("\\$\\{([A-Za-z]+)}");

  private RulesTemplate() {}

  /**
   * {@code template} with every placeholder replaced by its value.
   *
   * @throws IllegalArgumentException for a placeholder without a value: a rule would reach
   *     Prometheus with {@code ${...}} in its expression
   */
  static String render(String template, Map<String, String> values) {
    Matcher matcher = PLACEHOLDER.matcher(template);
    StringBuilder out = new StringBuilder();
    while (matcher.find()) {
      String value = values.get(matcher.group(1));
      if (value == null) {
        throw new IllegalArgumentException("no value for ${" + matcher.group(1) + "}");
      }
      matcher.appendReplacement(out, Matcher.quoteReplacement(value));
    }
    return matcher.appendTail(out).toString();
  }
}
