package io.thinvol.operator.model;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyIngressRule;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyIngressRuleBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPort;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPortBuilder;
import io.thinvol.api.v1alpha1.StorageBackend;
import java.util.List;
import java.util.Map;

/**
 * Who may reach the node pods: their CSI-Addons port (which can change data) only the operator's
 * pods and the backend's node pods (forwarded ControllerModifyVolume), in the operator's namespace;
 * the read-only health and metrics ports anyone (probes, Prometheus in any namespace); nothing
 * else. The node pods use the pod network (no hostNetwork), so the policy applies to them wherever
 * the network plugin enforces NetworkPolicies; the token check on the port stays the authority
 * either way.
 */
public final class NetworkPolicyModel {

  private NetworkPolicyModel() {}

  public static NetworkPolicy desired(StorageBackend backend, Settings settings) {
    return new NetworkPolicyBuilder()
        .withMetadata(Names.namespaced(Names.nodeDaemonSet(backend), backend, settings))
        .withNewSpec()
        .withNewPodSelector()
        .withMatchLabels(Names.nodePodLabels(backend))
        .endPodSelector()
        .withPolicyTypes("Ingress")
        .withIngress(fromOperatorAndPeers(backend, settings), fromAnywhere())
        .endSpec()
        .build();
  }

  /**
   * The operator (reclaims) and the backend's own node pods (a ControllerModifyVolume forwarded to
   * the node holding the volume, see {@link PeerForwardingModel}), both in the operator's
   * namespace.
   */
  private static NetworkPolicyIngressRule fromOperatorAndPeers(
      StorageBackend backend, Settings settings) {
    return new NetworkPolicyIngressRuleBuilder()
        .addNewFrom()
        .withNewPodSelector()
        .withMatchLabels(Names.operatorPodLabels())
        .endPodSelector()
        .withNewNamespaceSelector()
        .withMatchLabels(Map.of("kubernetes.io/metadata.name", settings.namespace()))
        .endNamespaceSelector()
        .endFrom()
        .addNewFrom()
        .withNewPodSelector()
        .withMatchLabels(Names.nodePodLabels(backend))
        .endPodSelector()
        .withNewNamespaceSelector()
        .withMatchLabels(Map.of("kubernetes.io/metadata.name", settings.namespace()))
        .endNamespaceSelector()
        .endFrom()
        .withPorts(tcp(NodeDaemonSetModel.ADDONS_PORT))
        .build();
  }

  /** Health and metrics: read-only, and scraped or probed from outside the namespace. */
  private static NetworkPolicyIngressRule fromAnywhere() {
    return new NetworkPolicyIngressRuleBuilder()
        .withPorts(
            List.of(
                tcp(NodeDaemonSetModel.HTTP_PORT),
                tcp(NodeDaemonSetModel.HEALTH_PORT),
                tcp(NodeDaemonSetModel.REGISTRAR_PORT)))
        .build();
  }

  /** Protocol spelled out: the API server fills it in, and a diff would loop forever. */
  private static NetworkPolicyPort tcp(int port) {
    return new NetworkPolicyPortBuilder()
        .withProtocol("TCP")
        .withPort(new IntOrString(port))
        .build();
  }
}
