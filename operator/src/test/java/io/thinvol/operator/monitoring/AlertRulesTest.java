package io.thinvol.operator.monitoring;

import static io.thinvol.operator.monitoring.AlertRulesPromtoolTest.backend;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** What every alert must carry, and what the rules may read (docs/monitoring.md). */
class AlertRulesTest {

  private static final MonitoringDocs DOCS = MonitoringDocs.read();

  @SuppressWarnings("unchecked")
  private static List<Map<String, Object>> rules(List<Map<String, Object>> groups) {
    return groups.stream()
        .flatMap(group -> ((List<Map<String, Object>>) group.get("rules")).stream())
        .toList();
  }

  private static List<Map<String, Object>> allRules() {
    return Stream.concat(
            rules(AlertRules.groups(backend("fast", ""))).stream(),
            rules(AlertRules.operatorGroups()).stream())
        .toList();
  }

  @Test
  @SuppressWarnings("unchecked")
  void everyAlertSaysWhatItIsWhereAndWhatToDoWithARunbookThatExists() {
    Set<String> anchors = DOCS.anchors();
    assertThat(allRules()).hasSizeGreaterThanOrEqualTo(14);
    for (Map<String, Object> rule : allRules()) {
      String alert = (String) rule.get("alert");
      Map<String, String> annotations = (Map<String, String>) rule.get("annotations");
      Map<String, String> labels = (Map<String, String>) rule.get("labels");
      assertThat(labels.get("severity")).as(alert).isIn("warning", "critical");
      assertThat(annotations.get("summary")).as(alert).isNotBlank();
      assertThat(annotations.get("description")).as(alert).contains("docs/monitoring.md#");
      String anchor = alert.toLowerCase(Locale.ROOT);
      assertThat(annotations.get("runbook_url"))
          .as(alert)
          .isEqualTo(AlertRules.RUNBOOKS + "#" + anchor);
      assertThat(anchors).as("docs/monitoring.md has a section %s", alert).contains(anchor);
    }
  }

  @Test
  @SuppressWarnings("unchecked")
  void nodeAlertsNameTheNodeAndTheBackend() {
    for (Map<String, Object> rule : rules(AlertRules.groups(backend("fast", "")))) {
      Map<String, String> annotations = (Map<String, String>) rule.get("annotations");
      assertThat(annotations.get("description")).as(rule.get("alert").toString()).contains("fast");
      if (!rule.get("alert").equals("ThinvolNodePodsUnavailable")) {
        assertThat(annotations.get("description"))
            .as(rule.get("alert").toString())
            .contains("{{ $labels.node }}");
      }
    }
  }

  @Test
  void everyBackendExpressionFiltersItsBackendAndReadsOnlyDocumentedMetrics() {
    Pattern selector = Pattern.compile("([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{[^}]*})?");
    for (Map<String, Object> rule : rules(AlertRules.groups(backend("fast", "")))) {
      String expr = (String) rule.get("expr");
      for (String series : MonitoringDocs.seriesIn(expr)) {
        assertThat(DOCS.documents(series)).as("%s in %s", series, rule.get("alert")).isTrue();
      }
      Matcher matcher = selector.matcher(expr);
      while (matcher.find()) {
        if (MonitoringDocs.seriesIn(expr).contains(matcher.group(1))) {
          assertThat(matcher.group(2))
              .as("%s of %s", matcher.group(1), rule.get("alert"))
              .isNotNull()
              .contains("backend=\"fast\"");
        }
      }
    }
    for (Map<String, Object> rule : rules(AlertRules.operatorGroups())) {
      MonitoringDocs.seriesIn((String) rule.get("expr"))
          .forEach(series -> assertThat(DOCS.documents(series)).as(series).isTrue());
    }
  }

  @Test
  void thresholdsComeFromTheBackendsSpec() {
    String custom =
        Serialization.asYaml(
            AlertRules.groups(
                backend(
                    "big",
                    "  monitoring:\n    dataDirWarningPercent: 61\n"
                        + "    dataDirCriticalPercent: 83\n    fillPredictionHours: 47\n"
                        + "    promisedCapacityWarningPercent: 71\n")));
    assertThat(custom)
        .contains("> 61\n", "> 83\n", "169200) < 0", "> 71\n", "within 47 h")
        .doesNotContain("${");
    String defaults = Serialization.asYaml(AlertRules.groups(backend("fast", "")));
    assertThat(defaults).contains("> 75\n", "> 90\n", "86400) < 0", "within 24 h");
  }

  @Test
  void everyAlertHasAPromtoolCaseThatFiresAndOneThatDoesNot() throws IOException {
    Set<String> fires = new HashSet<>();
    Set<String> silent = new HashSet<>();
    for (String name : AlertRulesPromtoolTest.TESTS) {
      for (Map<String, Object> test : promtoolCases(name)) {
        for (Map<String, Object> check : alertChecks(test)) {
          List<?> expected = (List<?>) check.get("exp_alerts");
          (expected == null || expected.isEmpty() ? silent : fires)
              .add((String) check.get("alertname"));
        }
      }
    }
    List<String> alerts = allRules().stream().map(rule -> (String) rule.get("alert")).toList();
    assertThat(fires).containsAll(alerts);
    assertThat(silent).containsAll(alerts);
  }

  @Test
  void placeholdersWithoutAValueAreRefusedAndPrometheusTemplatesPass() {
    assertThat(RulesTemplate.render("${a} {{ $labels.node }} $value", Map.of("a", "x")))
        .isEqualTo("x {{ $labels.node }} $value");
    assertThatThrownBy(() -> RulesTemplate.render("${a} ${b}", Map.of("a", "x")))
        .hasMessage("no value for ${b}");
  }

  @SuppressWarnings("unchecked")
  private static List<Map<String, Object>> promtoolCases(String name) throws IOException {
    try (InputStream in = AlertRulesTest.class.getResourceAsStream("/promtool/" + name)) {
      return (List<Map<String, Object>>)
          Serialization.unmarshal(in, Map.class).getOrDefault("tests", new ArrayList<>());
    }
  }

  @SuppressWarnings("unchecked")
  private static List<Map<String, Object>> alertChecks(Map<String, Object> test) {
    return (List<Map<String, Object>>) test.getOrDefault("alert_rule_test", List.of());
  }
}
