package io.thinvol.operator.monitoring;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The dashboard parses, offers the backend and node variables, and queries only real metrics. */
class GrafanaDashboardTest {

  @Test
  void everyPanelQueriesDocumentedMetricsOfTheChosenBackendAndNodes() throws Exception {
    JsonNode dashboard = new ObjectMapper().readTree(GrafanaDashboard.json());
    List<String> variables = new ArrayList<>();
    dashboard.path("templating").path("list").forEach(v -> variables.add(v.path("name").asText()));
    assertThat(variables).contains("backend", "node");

    MonitoringDocs docs = MonitoringDocs.read();
    List<String> titles = new ArrayList<>();
    for (JsonNode panel : dashboard.path("panels")) {
      if (panel.path("type").asText().equals("row")) {
        continue;
      }
      titles.add(panel.path("title").asText());
      assertThat(panel.path("targets")).as(panel.path("title").asText()).isNotEmpty();
      for (JsonNode target : panel.path("targets")) {
        String expr = target.path("expr").asText();
        assertThat(MonitoringDocs.seriesIn(expr)).as(expr).isNotEmpty();
        for (String series : MonitoringDocs.seriesIn(expr)) {
          assertThat(docs.documents(series)).as("%s in %s", series, expr).isTrue();
          if (docs.metrics().containsKey(series) && !series.startsWith("thinvol_reclaimspace_")) {
            assertThat(expr).as(expr).contains("backend=~\"$backend\"", "node=~\"$node\"");
          }
        }
      }
    }
    assertThat(String.join("\n", titles))
        .contains("Physical vs promised vs allocated", "Bytes reclaimed", "Latency p99")
        .contains("ReclaimSpaceJob results");
    for (JsonNode variable : dashboard.path("templating").path("list")) {
      String query = variable.path("definition").asText();
      MonitoringDocs.seriesIn(query.replaceAll("^label_values\\((.*), \\w+\\)$", "$1"))
          .forEach(series -> assertThat(docs.documents(series)).as(query).isTrue());
    }
  }
}
