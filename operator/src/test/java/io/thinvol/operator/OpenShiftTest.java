package io.thinvol.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.openshift.api.model.SecurityContextConstraints;
import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.operator.model.Settings;
import io.thinvol.operator.model.VolumeSnapshotClass;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * On OpenShift the node pods get their own SecurityContextConstraints, only they may use it, and
 * the namespace lets privileged pods in.
 */
class OpenShiftTest extends MockClusterTest {

  @Override
  Settings settings() {
    return new Settings(NAMESPACE, SETTINGS.operatorImage(), true, false);
  }

  @Test
  @DisplayName("An SCC for the node pods, usable by their ServiceAccount only, removed with them")
  void securityContextConstraints() {
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
    SecurityContextConstraints scc =
        clusterScoped(SecurityContextConstraints.class, "thinvol-ocp-node");
    assertThat(scc.getAllowPrivilegedContainer()).isTrue();
    assertThat(scc.getAllowHostDirVolumePlugin()).isTrue();
    assertThat(scc.getAllowHostNetwork()).isFalse();
    assertThat(scc.getAllowHostPID()).isFalse();
    assertThat(scc.getUsers())
        .as("only the node pods' ServiceAccount")
        .containsExactly("system:serviceaccount:thinvol-system:thinvol-ocp-node");
    assertThat(scc.getGroups()).isEmpty();
    assertThat(clusterScoped(ClusterRole.class, "thinvol-ocp-node").getRules())
        .as("no RBAC on SCCs: the SCC names its user")
        .noneMatch(rule -> rule.getApiGroups().contains("security.openshift.io"));
    namespaced(DaemonSet.class, "thinvol-ocp-node");
    assertThat(client.resources(VolumeSnapshotClass.class).list().getItems())
        .as("no snapshot API here")
        .isEmpty();
    assertThat(client.namespaces().withName(NAMESPACE).get().getMetadata().getLabels())
        .containsEntry("pod-security.kubernetes.io/enforce", "privileged")
        .containsEntry("pod-security.kubernetes.io/warn", "privileged")
        .containsEntry("security.openshift.io/scc.podSecurityLabelSync", "false")
        .containsEntry("team", "storage");

    client.resources(StorageBackend.class).withName("ocp").delete();
    await(
        "the SCC to go",
        () ->
            client.resources(SecurityContextConstraints.class).withName("thinvol-ocp-node").get()
                == null);
  }
}
