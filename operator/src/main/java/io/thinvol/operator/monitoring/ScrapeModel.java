package io.thinvol.operator.monitoring;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.operator.model.Names;
import io.thinvol.operator.model.NodeDaemonSetModel;
import io.thinvol.operator.model.Settings;
import java.util.List;
import java.util.Map;

/**
 * What Prometheus scrapes: a PodMonitor for each backend's node pods and one for the operator.
 * Their relabelings give every series the labels the alert rules and the dashboard select on:
 * {@code job} ({@value #NODE_JOB} or {@value #OPERATOR_JOB}), {@code backend} and {@code node} on
 * the node pods' series (the Prometheus Operator adds {@code namespace} and {@code pod}). Both
 * endpoints serve plain HTTP: see docs/decisions.md.
 */
public final class ScrapeModel {

  public static final String NODE_JOB = "thinvol-node";
  public static final String OPERATOR_JOB = "thinvol-operator";

  /** The shared PodMonitor and PrometheusRule of the operator. */
  public static final String OPERATOR_OBJECTS = "thinvol-operator";

  /** The operator's container port, as its Deployment (bundle and chart) names it. */
  public static final String OPERATOR_PORT = "health";

  static final String PATH = "/metrics";

  private ScrapeModel() {}

  /** The backend's node pods, on the driver's HTTP port. */
  public static PodMonitor nodePods(StorageBackend backend, Settings settings) {
    PodMonitor monitor = new PodMonitor();
    monitor.setMetadata(Names.namespaced(Names.nodeDaemonSet(backend), backend, settings));
    monitor.setSpec(
        spec(
            Names.nodePodLabels(backend),
            NodeDaemonSetModel.HTTP_PORT_NAME,
            List.of(
                fixed("job", NODE_JOB),
                copied(podLabel(Names.BACKEND_LABEL), "backend"),
                copied("__meta_kubernetes_pod_node_name", "node"))));
    return monitor;
  }

  /** The operator's pods, on its health port (which serves /metrics too). */
  public static PodMonitor operator(Settings settings) {
    PodMonitor monitor = new PodMonitor();
    monitor.setMetadata(
        new ObjectMetaBuilder()
            .withName(OPERATOR_OBJECTS)
            .withNamespace(settings.namespace())
            .withLabels(Names.sharedLabels())
            .build());
    monitor.setSpec(
        spec(Names.operatorPodLabels(), OPERATOR_PORT, List.of(fixed("job", OPERATOR_JOB))));
    return monitor;
  }

  /** Selects pods in the PodMonitor's own namespace (the Prometheus Operator's default). */
  private static Map<String, Object> spec(
      Map<String, String> podLabels, String port, List<Map<String, Object>> relabelings) {
    return Map.of(
        "selector",
        Map.of("matchLabels", podLabels),
        "podMetricsEndpoints",
        List.of(Map.of("port", port, "path", PATH, "relabelings", relabelings)));
  }

  /** The meta label Prometheus' Kubernetes discovery gives a pod label. */
  static String podLabel(String label) {
    return "__meta_kubernetes_pod_label_" + label.replaceAll("[^a-zA-Z0-9_]", "_");
  }

  private static Map<String, Object> fixed(String target, String value) {
    return Map.of("action", "replace", "targetLabel", target, "replacement", value);
  }

  private static Map<String, Object> copied(String source, String target) {
    return Map.of("action", "replace", "sourceLabels", List.of(source), "targetLabel", target);
  }
}
