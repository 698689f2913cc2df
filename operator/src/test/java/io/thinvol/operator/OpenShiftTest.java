package io.thinvol.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.openshift.api.model.SecurityContextConstraints;
import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.operator.model.Names;
import io.thinvol.operator.model.Settings;
import io.thinvol.testing.TestCluster;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * On OpenShift the node pods run under the built-in privileged SCC: their ServiceAccount alone is
 * bound to its ClusterRole, the operator touches no SCC, and the namespace lets privileged pods in.
 */
class OpenShiftTest extends MockClusterTest {

  @Override
  Settings settings() {
    return new Settings(NAMESPACE, SETTINGS.operatorImage(), true, false);
  }

  @Test
  @DisplayName("The node ServiceAccount alone is bound to the privileged SCC, unbound with it")
  void privilegedSccBinding() {
    client
        .namespaces()
        .resource(
            new NamespaceBuilder()
                .withNewMetadata()
                .withName(NAMESPACE)
                .addToLabels("pod-security.kubernetes.io/enforce", "restricted")
                .addToLabels("team", "storage")
                .endMetadata()
                .build())
        .update(); // the fixture made it; a user labelled it
    apply("metadata:\n  name: ocp\n");
    ClusterRoleBinding binding =
        clusterScoped(ClusterRoleBinding.class, Names.NODE_PRIVILEGED_SCC_BINDING);
    assertThat(binding.getRoleRef().getName()).isEqualTo("system:openshift:scc:privileged");
    assertThat(binding.getSubjects())
        .extracting(s -> s.getNamespace() + "/" + s.getName())
        .as("only the node pods' ServiceAccount")
        .containsExactly("thinvol-system/thinvol-ocp-node");
    assertThat(operatorDecisions())
        .as(
            "the binding created: the escalation check allows it only by bind on that ClusterRole,"
                + " whose use of the privileged SCC the operator does not hold")
        .anySatisfy(
            d -> {
              assertThat(d.request().verb()).isEqualTo("create");
              assertThat(d.request().resource()).isEqualTo("clusterrolebindings");
              assertThat(d.code()).isEqualTo(201);
            });
    if (cluster.strict().isPresent()) {
      assertThat(operatorDecisions())
          .as("the strict server records the bind its escalation check authorised")
          .anySatisfy(
              d -> {
                assertThat(d.request().verb()).isEqualTo("bind");
                assertThat(d.request().name()).isEqualTo(TestCluster.PRIVILEGED_SCC_ROLE);
              });
    }
    assertThat(operatorDecisions())
        .as("no request on any SCC")
        .noneMatch(d -> d.request().group().equals("security.openshift.io"));
    assertThat(client.resources(SecurityContextConstraints.class).list().getItems()).isEmpty();
    namespaced(DaemonSet.class, "thinvol-ocp-node");
    assertThat(operatorDecisions())
        .as("no request on the snapshot API, which this cluster does not serve")
        .noneMatch(d -> d.request().group().equals("snapshot.storage.k8s.io"));
    assertThat(client.namespaces().withName(NAMESPACE).get().getMetadata().getLabels())
        .containsEntry("pod-security.kubernetes.io/enforce", "privileged")
        .containsEntry("pod-security.kubernetes.io/warn", "privileged")
        .containsEntry("security.openshift.io/scc.podSecurityLabelSync", "false")
        .containsEntry("team", "storage");

    client.resources(StorageBackend.class).withName("ocp").delete();
    await(
        "the binding to bind nothing any more",
        () ->
            client
                .rbac()
                .clusterRoleBindings()
                .withName(Names.NODE_PRIVILEGED_SCC_BINDING)
                .get()
                .getSubjects()
                .isEmpty());
  }
}
