package io.thinvol.operator.model;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyIngressRule;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeer;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPort;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.thinvol.api.v1alpha1.StorageBackend;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class NetworkPolicyModelTest {

  private static final Settings SETTINGS =
      new Settings("thinvol-system", "quay.io/thinvol/thinvol:0.1.0", false, true);
  private static final StorageBackend BACKEND =
      Serialization.unmarshal(
          "apiVersion: thinvol.io/v1alpha1\nkind: StorageBackend\nmetadata:\n  name: local\n",
          StorageBackend.class);

  private final NetworkPolicy policy = NetworkPolicyModel.desired(BACKEND, SETTINGS);
  private final PodSpec nodePod =
      NodeDaemonSetModel.desired(BACKEND, SETTINGS, true).getSpec().getTemplate().getSpec();

  @Test
  @DisplayName("It selects the node pods, which are on the pod network (a policy applies to them)")
  void selectsTheNodePods() {
    assertThat(policy.getMetadata().getName()).isEqualTo("thinvol-local-node");
    assertThat(policy.getMetadata().getNamespace()).isEqualTo("thinvol-system");
    assertThat(policy.getMetadata().getLabels()).containsAllEntriesOf(Names.labels(BACKEND));
    assertThat(policy.getSpec().getPodSelector().getMatchLabels())
        .isEqualTo(Names.nodePodLabels(BACKEND))
        .isEqualTo(
            NodeDaemonSetModel.desired(BACKEND, SETTINGS, true)
                .getSpec()
                .getSelector()
                .getMatchLabels());
    assertThat(policy.getSpec().getPolicyTypes()).containsExactly("Ingress");
    assertThat(nodePod.getHostNetwork())
        .as("hostNetwork would bypass the policy")
        .isNotEqualTo(true);
  }

  @Test
  @DisplayName(
      "The addons port admits the operator's pods and the backend's node pods (forwarded"
          + " ModifyVolume), in its namespace only")
  void addonsPortFromTheOperatorAndPeersOnly() {
    List<NetworkPolicyIngressRule> rules = policy.getSpec().getIngress();
    List<NetworkPolicyIngressRule> addons =
        rules.stream().filter(r -> ports(r).contains(NodeDaemonSetModel.ADDONS_PORT)).toList();
    assertThat(addons).hasSize(1);
    assertThat(ports(addons.get(0))).containsExactly(NodeDaemonSetModel.ADDONS_PORT);
    assertThat(addons.get(0).getFrom())
        .extracting(p -> p.getPodSelector().getMatchLabels())
        .containsExactly(
            Map.of("app.kubernetes.io/name", "thinvol-operator"),
            Map.of("app.kubernetes.io/name", "thinvol-node", "thinvol.io/backend", "local"));
    for (NetworkPolicyPeer peer : addons.get(0).getFrom()) {
      assertThat(peer.getNamespaceSelector().getMatchLabels())
          .isEqualTo(Map.of("kubernetes.io/metadata.name", "thinvol-system"));
      assertThat(peer.getIpBlock()).isNull();
    }
  }

  @Test
  @DisplayName("Health and metrics stay open; every port of the node pods is covered, none more")
  void otherPortsOpenAndNothingElse() {
    List<Integer> declared =
        nodePod.getContainers().stream()
            .flatMap(c -> c.getPorts().stream())
            .map(ContainerPort::getContainerPort)
            .toList();
    List<Integer> admitted =
        policy.getSpec().getIngress().stream().flatMap(r -> ports(r).stream()).toList();
    assertThat(admitted).containsExactlyInAnyOrderElementsOf(declared);
    policy.getSpec().getIngress().stream()
        .filter(r -> !ports(r).contains(NodeDaemonSetModel.ADDONS_PORT))
        .forEach(r -> assertThat(r.getFrom()).as("open to any peer").isNullOrEmpty());
    policy.getSpec().getIngress().stream()
        .flatMap(r -> r.getPorts().stream())
        .forEach(p -> assertThat(p.getProtocol()).isEqualTo("TCP"));
  }

  private static List<Integer> ports(NetworkPolicyIngressRule rule) {
    return rule.getPorts().stream()
        .map(NetworkPolicyPort::getPort)
        .map(IntOrString::getIntVal)
        .filter(Objects::nonNull)
        .toList();
  }
}
