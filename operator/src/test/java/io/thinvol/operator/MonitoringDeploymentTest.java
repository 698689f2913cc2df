package io.thinvol.operator;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.operator.model.Settings;
import io.thinvol.operator.monitoring.AlertRules;
import io.thinvol.operator.monitoring.PodMonitor;
import io.thinvol.operator.monitoring.PrometheusRule;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Where the cluster serves monitoring.coreos.com/v1: each backend has a PodMonitor of its node pods
 * and a PrometheusRule, owned by it and removed with it; the operator's PodMonitor and
 * PrometheusRule exist while any backend does; the operator counts each backend's node pods.
 */
class MonitoringDeploymentTest extends MockClusterTest {

  static Settings servingMonitoring(boolean openShift) {
    return new Settings(NAMESPACE, SETTINGS.operatorImage(), openShift, true)
        .withMonitoringApi(true);
  }

  @Override
  Settings settings() {
    return servingMonitoring(false);
  }

  @Test
  @DisplayName("ClusterFacts reads the monitoring API as served once its CRDs are")
  void monitoringApiServed() {
    assertThat(ClusterFacts.of(operatorClient).monitoringApi()).isTrue();
  }

  @Test
  @DisplayName("A backend's PodMonitor and PrometheusRule, owned by it and removed with it")
  void perBackend() {
    StorageBackend backend = apply("metadata:\n  name: mon\n");
    PodMonitor nodes = namespaced(PodMonitor.class, "thinvol-mon-node");
    assertOwnedBy(nodes, backend);
    assertThat(nodes.getSpec())
        .containsEntry(
            "selector",
            Map.of(
                "matchLabels",
                Map.of("app.kubernetes.io/name", "thinvol-node", "thinvol.io/backend", "mon")));
    Map<String, Object> endpoint = onlyEndpoint(nodes);
    assertThat(endpoint).containsEntry("port", "http").containsEntry("path", "/metrics");
    assertThat(relabelings(endpoint))
        .containsExactlyInAnyOrder(
            Map.of("action", "replace", "targetLabel", "job", "replacement", "thinvol-node"),
            Map.of(
                "action",
                "replace",
                "sourceLabels",
                List.of("__meta_kubernetes_pod_label_thinvol_io_backend"),
                "targetLabel",
                "backend"),
            Map.of(
                "action",
                "replace",
                "sourceLabels",
                List.of("__meta_kubernetes_pod_node_name"),
                "targetLabel",
                "node"));

    PrometheusRule rules = namespaced(PrometheusRule.class, "thinvol-mon");
    assertOwnedBy(rules, backend);
    assertThat(json(rules.getSpec().get("groups"))).isEqualTo(json(AlertRules.groups(backend)));

    client.resources(StorageBackend.class).withName("mon").delete();
    await(
        "the backend's PodMonitor and PrometheusRule removed with it",
        () ->
            absent(PodMonitor.class, "thinvol-mon-node")
                && absent(PrometheusRule.class, "thinvol-mon"));
  }

  @Test
  @DisplayName("The operator's PodMonitor and PrometheusRule live while a backend does")
  void shared() {
    apply("metadata:\n  name: one\n");
    apply("metadata:\n  name: two\n");
    PodMonitor operatorPods = namespaced(PodMonitor.class, "thinvol-operator");
    assertThat(operatorPods.getMetadata().getOwnerReferences()).isNullOrEmpty();
    assertThat(operatorPods.getSpec())
        .containsEntry(
            "selector",
            Map.of("matchLabels", Map.of("app.kubernetes.io/name", "thinvol-operator")));
    Map<String, Object> endpoint = onlyEndpoint(operatorPods);
    assertThat(endpoint).containsEntry("port", "health").containsEntry("path", "/metrics");
    assertThat(relabelings(endpoint))
        .containsExactly(
            Map.of("action", "replace", "targetLabel", "job", "replacement", "thinvol-operator"));
    PrometheusRule operatorRules = namespaced(PrometheusRule.class, "thinvol-operator");
    assertThat(json(operatorRules.getSpec().get("groups")))
        .isEqualTo(json(AlertRules.operatorGroups()));

    // a person's edit is undone at the next reconcile (here: the DaemonSet's status changes)
    operatorRules.setSpec(Map.of("groups", List.of(Map.of("name", "mine", "rules", List.of()))));
    client.resource(operatorRules).update();
    namespaced(DaemonSet.class, "thinvol-one-node");
    playDaemonSetController("thinvol-one-node", 1, 1);
    await(
        "the operator's rules restored",
        () ->
            json(client
                    .resources(PrometheusRule.class)
                    .inNamespace(NAMESPACE)
                    .withName("thinvol-operator")
                    .get()
                    .getSpec()
                    .get("groups"))
                .equals(json(AlertRules.operatorGroups())));

    client.resources(StorageBackend.class).withName("one").delete();
    await("backend one gone", () -> absent(PodMonitor.class, "thinvol-one-node"));
    await(
        "backend one's finalizer removed",
        () -> client.resources(StorageBackend.class).withName("one").get() == null);
    assertThat(absent(PodMonitor.class, "thinvol-operator"))
        .as("another backend is left")
        .isFalse();
    assertThat(absent(PrometheusRule.class, "thinvol-operator")).isFalse();

    client.resources(StorageBackend.class).withName("two").delete();
    await(
        "the operator's PodMonitor and PrometheusRule removed with the last backend",
        () ->
            absent(PodMonitor.class, "thinvol-operator")
                && absent(PrometheusRule.class, "thinvol-operator"));
  }

  @Test
  @DisplayName("thinvol_operator_node_pods from each DaemonSet's status, gone with its backend")
  void nodePodsMetric() throws Exception {
    apply("metadata:\n  name: met\n");
    namespaced(DaemonSet.class, "thinvol-met-node");
    playDaemonSetController("thinvol-met-node", 3, 3);
    await(
        "the metric",
        () ->
            metrics().contains("thinvol_operator_node_pods{backend=\"met\",state=\"desired\"} 3\n")
                && metrics()
                    .contains("thinvol_operator_node_pods{backend=\"met\",state=\"ready\"} 3\n"));

    client.resources(StorageBackend.class).withName("met").delete();
    await("the backend's series gone", () -> !metrics().contains("backend=\"met\""));
  }

  private String metrics() {
    try {
      return HttpClient.newHttpClient()
          .send(
              HttpRequest.newBuilder(
                      URI.create("http://localhost:" + operator.healthPort() + "/metrics"))
                  .build(),
              HttpResponse.BodyHandlers.ofString())
          .body();
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private <T extends HasMetadata> boolean absent(Class<T> type, String name) {
    return client.resources(type).inNamespace(NAMESPACE).withName(name).get() == null;
  }

  private static void assertOwnedBy(HasMetadata object, StorageBackend backend) {
    assertThat(object.getMetadata().getOwnerReferences())
        .extracting(OwnerReference::getUid)
        .containsExactly(backend.getMetadata().getUid());
    assertThat(object.getMetadata().getLabels())
        .containsEntry("thinvol.io/backend", backend.getMetadata().getName());
  }

  private static Map<String, Object> onlyEndpoint(PodMonitor monitor) {
    List<?> endpoints = (List<?>) monitor.getSpec().get("podMetricsEndpoints");
    assertThat(endpoints).hasSize(1);
    @SuppressWarnings("unchecked")
    Map<String, Object> endpoint = (Map<String, Object>) endpoints.get(0);
    return endpoint;
  }

  private static List<Object> relabelings(Map<String, Object> endpoint) {
    @SuppressWarnings("unchecked")
    List<Object> relabelings = (List<Object>) endpoint.get("relabelings");
    return relabelings;
  }

  /** As a tree: a real server returns the rules' keys sorted, and key order means nothing. */
  private static JsonNode json(Object value) {
    return Serialization.jsonMapper().valueToTree(value);
  }
}
