package io.thinvol.operator.monitoring;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBuilder;
import io.thinvol.operator.model.Names;
import io.thinvol.operator.model.Settings;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What OpenShift's cluster monitoring needs besides the PodMonitors: its Prometheus ({@value
 * #PROMETHEUS_NAMESPACE}/{@value #PROMETHEUS_ACCOUNT}) scrapes only namespaces labelled {@value
 * #NAMESPACE_LABEL}, and only with a Role that lets it discover their pods; the console shows
 * dashboards from labelled ConfigMaps in {@value #DASHBOARD_NAMESPACE}.
 */
public final class OpenShiftMonitoringModel {

  public static final String NAMESPACE_LABEL = "openshift.io/cluster-monitoring";
  public static final String PROMETHEUS_NAMESPACE = "openshift-monitoring";
  public static final String PROMETHEUS_ACCOUNT = "prometheus-k8s";

  /**
   * The Role and the RoleBinding for cluster monitoring's Prometheus, in the operator's namespace.
   */
  public static final String PROMETHEUS_ROLE = "thinvol-prometheus-k8s";

  public static final String DASHBOARD_NAMESPACE = "openshift-config-managed";
  public static final String DASHBOARD = "thinvol-dashboard";
  public static final String DASHBOARD_LABEL = "console.openshift.io/dashboard";
  static final String DASHBOARD_KEY = "thinvol.json";

  private OpenShiftMonitoringModel() {}

  /** Whether this cluster gets these objects: OpenShift, whose monitoring API is served. */
  public static boolean deployed(Settings settings) {
    return settings.openShift() && MonitoringApi.deployed(settings);
  }

  /**
   * The namespace label to add where it is absent: a value someone set (to keep cluster monitoring
   * out) is theirs to keep.
   */
  public static Map<String, String> missingNamespaceLabels(
      Map<String, String> current, Settings settings) {
    if (!deployed(settings) || (current != null && current.containsKey(NAMESPACE_LABEL))) {
      return Map.of();
    }
    return Map.of(NAMESPACE_LABEL, "true");
  }

  /**
   * What Prometheus reads to find the pods a PodMonitor selects (its Kubernetes discovery of role
   * pod): no Services or Endpoints, which only ServiceMonitors use.
   */
  public static List<PolicyRule> prometheusRules() {
    return List.of(
        new PolicyRuleBuilder()
            .withApiGroups("")
            .withResources("pods")
            .withVerbs("get", "list", "watch")
            .build());
  }

  public static Role prometheusRole(Settings settings) {
    return new RoleBuilder()
        .withNewMetadata()
        .withName(PROMETHEUS_ROLE)
        .withNamespace(settings.namespace())
        .withLabels(Names.sharedLabels())
        .endMetadata()
        .withRules(prometheusRules())
        .build();
  }

  public static RoleBinding prometheusRoleBinding(Settings settings) {
    return new RoleBindingBuilder()
        .withNewMetadata()
        .withName(PROMETHEUS_ROLE)
        .withNamespace(settings.namespace())
        .withLabels(Names.sharedLabels())
        .endMetadata()
        .withNewRoleRef()
        .withApiGroup("rbac.authorization.k8s.io")
        .withKind("Role")
        .withName(PROMETHEUS_ROLE)
        .endRoleRef()
        .addNewSubject()
        .withKind("ServiceAccount")
        .withName(PROMETHEUS_ACCOUNT)
        .withNamespace(PROMETHEUS_NAMESPACE)
        .endSubject()
        .build();
  }

  /** The console's dashboard: Grafana's JSON model in a labelled ConfigMap. */
  public static ConfigMap dashboard() {
    Map<String, String> labels = new HashMap<>(Names.sharedLabels());
    labels.put(DASHBOARD_LABEL, "true");
    return new ConfigMapBuilder()
        .withNewMetadata()
        .withName(DASHBOARD)
        .withNamespace(DASHBOARD_NAMESPACE)
        .withLabels(labels)
        .endMetadata()
        .withData(Map.of(DASHBOARD_KEY, GrafanaDashboard.json()))
        .build();
  }
}
