package io.thinvol.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.rbac.Subject;
import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.operator.model.Settings;
import io.thinvol.operator.monitoring.GrafanaDashboard;
import io.thinvol.operator.monitoring.PodMonitor;
import io.thinvol.testing.TestCluster;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * On OpenShift, whose cluster monitoring serves monitoring.coreos.com: the operator's namespace is
 * labelled for cluster monitoring (a value someone set stays), its Prometheus may discover the
 * namespace's pods, and the console shows the dashboard; all but the label go with the last
 * backend.
 */
class MonitoringOnOpenShiftTest extends MockClusterTest {

  private static final String LABEL = "openshift.io/cluster-monitoring";

  @Override
  Settings settings() {
    return MonitoringDeploymentTest.servingMonitoring(true);
  }

  @Test
  @DisplayName("Namespace label, Role and RoleBinding for prometheus-k8s, the console dashboard")
  void clusterMonitoring() {
    apply("metadata:\n  name: ocp\n");
    namespaced(PodMonitor.class, "thinvol-ocp-node");
    await(
        "the namespace labelled for cluster monitoring",
        () ->
            "true"
                .equals(
                    client
                        .namespaces()
                        .withName(NAMESPACE)
                        .get()
                        .getMetadata()
                        .getLabels()
                        .get(LABEL)));

    Role role = namespaced(Role.class, "thinvol-prometheus-k8s");
    assertThat(role.getRules())
        .singleElement()
        .satisfies(
            rule -> {
              assertThat(rule.getApiGroups()).containsExactly("");
              assertThat(rule.getResources()).containsExactly("pods");
              assertThat(rule.getVerbs()).containsExactly("get", "list", "watch");
            });
    RoleBinding binding = namespaced(RoleBinding.class, "thinvol-prometheus-k8s");
    assertThat(binding.getRoleRef().getKind()).isEqualTo("Role");
    assertThat(binding.getRoleRef().getName()).isEqualTo("thinvol-prometheus-k8s");
    assertThat(binding.getSubjects())
        .extracting(Subject::getKind, Subject::getNamespace, Subject::getName)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(
                "ServiceAccount", "openshift-monitoring", "prometheus-k8s"));

    ConfigMap dashboard = dashboard();
    assertThat(dashboard).isNotNull();
    assertThat(dashboard.getMetadata().getLabels())
        .containsEntry("console.openshift.io/dashboard", "true");
    assertThat(dashboard.getData()).containsEntry("thinvol.json", GrafanaDashboard.json());

    client.resources(StorageBackend.class).withName("ocp").delete();
    await(
        "the Role, RoleBinding and dashboard removed with the last backend",
        () ->
            dashboard() == null
                && client
                        .rbac()
                        .roles()
                        .inNamespace(NAMESPACE)
                        .withName("thinvol-prometheus-k8s")
                        .get()
                    == null
                && client
                        .rbac()
                        .roleBindings()
                        .inNamespace(NAMESPACE)
                        .withName("thinvol-prometheus-k8s")
                        .get()
                    == null);
  }

  @Test
  @DisplayName("A cluster-monitoring label someone set is left as it is")
  void labelSetBySomeoneElse() {
    client
        .namespaces()
        .resource(
            new NamespaceBuilder()
                .withNewMetadata()
                .withName(NAMESPACE)
                .addToLabels(LABEL, "false")
                .endMetadata()
                .build())
        .update();
    apply("metadata:\n  name: ocp\n");
    namespaced(Role.class, "thinvol-prometheus-k8s");
    await(
        "the namespace labelled for privileged pods",
        () -> namespaceLabels().containsKey("pod-security.kubernetes.io/enforce"));
    assertThat(namespaceLabels()).containsEntry(LABEL, "false");
  }

  private Map<String, String> namespaceLabels() {
    return client.namespaces().withName(NAMESPACE).get().getMetadata().getLabels();
  }

  private ConfigMap dashboard() {
    return client
        .configMaps()
        .inNamespace(TestCluster.CONSOLE_CONFIG)
        .withName("thinvol-dashboard")
        .get();
  }
}
