package io.thinvol.operator.model;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Capabilities;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.openshift.api.model.SecurityContextConstraints;
import io.thinvol.api.v1alpha1.StorageBackend;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The node pods run under OpenShift's built-in {@code privileged} SCC instead of one of the
 * operator's own: that SCC must admit every field of their pod that SCC admission checks.
 */
class PrivilegedSccAdmissionTest {

  private static final Settings OPEN_SHIFT =
      new Settings("thinvol-system", "quay.io/thinvol/thinvol:0.1.0", true, true);

  private static final StorageBackend BACKEND =
      Serialization.unmarshal(
          "apiVersion: thinvol.io/v1alpha1\nkind: StorageBackend\nmetadata:\n  name: local\n",
          StorageBackend.class);

  /** {@code oc get scc privileged -o yaml} on OpenShift 4 (the fields admission reads). */
  static final SecurityContextConstraints PRIVILEGED =
      Serialization.unmarshal(
          """
          apiVersion: security.openshift.io/v1
          kind: SecurityContextConstraints
          metadata:
            name: privileged
          allowHostDirVolumePlugin: true
          allowHostIPC: true
          allowHostNetwork: true
          allowHostPID: true
          allowHostPorts: true
          allowPrivilegeEscalation: true
          allowPrivilegedContainer: true
          allowedCapabilities: ["*"]
          fsGroup: {type: RunAsAny}
          readOnlyRootFilesystem: false
          runAsUser: {type: RunAsAny}
          seLinuxContext: {type: RunAsAny}
          seccompProfiles: ["*"]
          supplementalGroups: {type: RunAsAny}
          users: ["system:admin", "system:serviceaccount:openshift-infra:build-controller"]
          groups: ["system:cluster-admins", "system:nodes", "system:masters"]
          volumes: ["*"]
          """,
          SecurityContextConstraints.class);

  /** The restricted SCC every authenticated user may use: it must refuse the pods (control). */
  static final SecurityContextConstraints RESTRICTED_V2 =
      Serialization.unmarshal(
          """
          apiVersion: security.openshift.io/v1
          kind: SecurityContextConstraints
          metadata:
            name: restricted-v2
          allowHostDirVolumePlugin: false
          allowHostIPC: false
          allowHostNetwork: false
          allowHostPID: false
          allowHostPorts: false
          allowPrivilegeEscalation: false
          allowPrivilegedContainer: false
          allowedCapabilities: ["NET_BIND_SERVICE"]
          fsGroup: {type: MustRunAs}
          runAsUser: {type: MustRunAsRange}
          seLinuxContext: {type: MustRunAs}
          supplementalGroups: {type: RunAsAny}
          volumes: [configMap, csi, downwardAPI, emptyDir, ephemeral, persistentVolumeClaim,
            projected, secret]
          """,
          SecurityContextConstraints.class);

  @ParameterizedTest(name = "snapshot API served: {0}")
  @ValueSource(booleans = {true, false})
  @DisplayName("The built-in privileged SCC admits the node pods; restricted-v2 does not")
  void privilegedAdmitsTheNodePods(boolean snapshots) {
    PodSpec pod =
        NodeDaemonSetModel.desired(BACKEND, OPEN_SHIFT, snapshots)
            .getSpec()
            .getTemplate()
            .getSpec();
    assertThat(refusals(PRIVILEGED, pod)).isEmpty();
    assertThat(refusals(RESTRICTED_V2, pod))
        .as("the check sees what the pods ask for")
        .contains("privileged container", "hostPath volume", "SELinux options");
  }

  @Test
  @DisplayName("Only the backends' node ServiceAccounts are bound to the privileged SCC's role")
  void onlyTheNodeServiceAccountIsBound() {
    ClusterRoleBinding binding = PrivilegedSccModel.binding(List.of(BACKEND), OPEN_SHIFT);
    assertThat(binding.getRoleRef().getKind()).isEqualTo("ClusterRole");
    assertThat(binding.getRoleRef().getName()).isEqualTo("system:openshift:scc:privileged");
    assertThat(binding.getSubjects())
        .singleElement()
        .satisfies(
            s -> {
              assertThat(s.getKind()).isEqualTo("ServiceAccount");
              assertThat(s.getNamespace()).isEqualTo("thinvol-system");
              assertThat(s.getName()).isEqualTo(Names.nodeServiceAccount(BACKEND));
            });
  }

  /** What SCC admission would refuse in {@code pod} under {@code scc}. */
  static List<String> refusals(SecurityContextConstraints scc, PodSpec pod) {
    List<String> refused = new ArrayList<>();
    check(refused, !isTrue(pod.getHostNetwork()) || scc.getAllowHostNetwork(), "host network");
    check(refused, !isTrue(pod.getHostPID()) || scc.getAllowHostPID(), "host PID");
    check(refused, !isTrue(pod.getHostIPC()) || scc.getAllowHostIPC(), "host IPC");
    for (Volume volume : pod.getVolumes()) {
      String type = volumeType(volume);
      check(
          refused,
          scc.getVolumes().contains("*") || scc.getVolumes().contains(type),
          type + " volume");
      check(
          refused,
          volume.getHostPath() == null || scc.getAllowHostDirVolumePlugin(),
          "hostPath volume");
    }
    List<Container> containers = new ArrayList<>(pod.getContainers());
    containers.addAll(pod.getInitContainers());
    for (Container container : containers) {
      SecurityContext context =
          Optional.ofNullable(container.getSecurityContext()).orElseGet(SecurityContext::new);
      check(
          refused,
          !isTrue(context.getPrivileged()) || scc.getAllowPrivilegedContainer(),
          "privileged container");
      check(
          refused,
          !isTrue(context.getAllowPrivilegeEscalation()) || scc.getAllowPrivilegeEscalation(),
          "privilege escalation");
      check(
          refused,
          context.getSeLinuxOptions() == null
              || scc.getSeLinuxContext().getType().equals("RunAsAny"),
          "SELinux options");
      check(
          refused,
          context.getRunAsUser() == null || scc.getRunAsUser().getType().equals("RunAsAny"),
          "user");
      List<String> added =
          Optional.ofNullable(context.getCapabilities())
              .map(Capabilities::getAdd)
              .orElse(List.of());
      check(
          refused,
          scc.getAllowedCapabilities().contains("*")
              || scc.getAllowedCapabilities().containsAll(added),
          "capabilities " + added);
      for (ContainerPort port : container.getPorts()) {
        check(refused, port.getHostPort() == null || scc.getAllowHostPorts(), "host port");
      }
    }
    return refused.stream().distinct().toList();
  }

  private static void check(List<String> refused, boolean allowed, String what) {
    if (!allowed) {
      refused.add(what);
    }
  }

  private static boolean isTrue(Boolean value) {
    return Boolean.TRUE.equals(value);
  }

  /** The SCC name of a volume's type: its one source field, as the pod's JSON names it. */
  @SuppressWarnings("unchecked")
  private static String volumeType(Volume volume) {
    Map<String, Object> fields = Serialization.jsonMapper().convertValue(volume, Map.class);
    return fields.keySet().stream().filter(k -> !k.equals("name")).findFirst().orElseThrow();
  }
}
