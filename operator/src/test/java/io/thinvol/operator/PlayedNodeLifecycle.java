package io.thinvol.operator;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeConditionBuilder;
import io.fabric8.kubernetes.api.model.NodeStatusBuilder;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The node lifecycle controller and the kubelet, played: a node whose kubelet stops posting its
 * status gets Ready Unknown and the {@code node.kubernetes.io/unreachable} taints, as kube-
 * controller-manager does after its grace period; one that posts again gets Ready True and loses
 * them. An admin's {@code node.kubernetes.io/out-of-service} taint and {@code kubectl delete node}.
 */
final class PlayedNodeLifecycle {

  private static final String UNREACHABLE = "node.kubernetes.io/unreachable";

  private final KubernetesClient client;

  PlayedNodeLifecycle(KubernetesClient client) {
    this.client = client;
  }

  /** A node whose kubelet reports it Ready, as a joined node's does. */
  void ready(String name) {
    Node node = client.nodes().withName(name).get();
    node.setStatus(
        new NodeStatusBuilder()
            .withConditions(
                new NodeConditionBuilder()
                    .withType("Ready")
                    .withStatus("True")
                    .withReason("KubeletReady")
                    .withMessage("kubelet is posting ready status")
                    .withLastTransitionTime(Instant.now().toString())
                    .withLastHeartbeatTime(Instant.now().toString())
                    .build())
            .build());
    client.nodes().resource(node).updateStatus();
    taints(name, List.of());
  }

  /** The kubelet stopped posting: Ready Unknown, then the NoSchedule and NoExecute taints. */
  void unreachable(String name) {
    unreachable(name, "Kubelet stopped posting node status.");
  }

  /** As {@link #unreachable(String)}, with the node lifecycle controller's {@code message}. */
  void unreachable(String name, String message) {
    Node node = client.nodes().withName(name).get();
    node.setStatus(
        new NodeStatusBuilder()
            .withConditions(
                new NodeConditionBuilder()
                    .withType("Ready")
                    .withStatus("Unknown")
                    .withReason("NodeStatusUnknown")
                    .withMessage(message)
                    .withLastTransitionTime(Instant.now().toString())
                    .withLastHeartbeatTime(Instant.now().minusSeconds(50).toString())
                    .build())
            .build());
    client.nodes().resource(node).updateStatus();
    String now = Instant.now().toString();
    taints(
        name,
        List.of(
            new TaintBuilder().withKey(UNREACHABLE).withEffect("NoSchedule").withTimeAdded(now),
            new TaintBuilder().withKey(UNREACHABLE).withEffect("NoExecute").withTimeAdded(now)));
  }

  /** An admin's {@code kubectl taint node <name> node.kubernetes.io/out-of-service=...}. */
  void outOfService(String name) {
    Node node = client.nodes().withName(name).get();
    List<io.fabric8.kubernetes.api.model.Taint> taints =
        new ArrayList<>(
            node.getSpec() == null || node.getSpec().getTaints() == null
                ? List.of()
                : node.getSpec().getTaints());
    taints.add(
        new TaintBuilder()
            .withKey("node.kubernetes.io/out-of-service")
            .withValue("nodeshutdown")
            .withEffect("NoExecute")
            .build());
    client
        .nodes()
        .withName(name)
        .edit(n -> new NodeBuilder(n).editOrNewSpec().withTaints(taints).endSpec().build());
  }

  void delete(String name) {
    client.nodes().withName(name).delete();
  }

  /** The node made again under its name, as its kubelet registers it. */
  void recreate(String name) {
    client
        .resource(new NodeBuilder().withNewMetadata().withName(name).endMetadata().build())
        .create();
    ready(name);
  }

  private void taints(String name, List<TaintBuilder> taints) {
    client
        .nodes()
        .withName(name)
        .edit(
            n ->
                new NodeBuilder(n)
                    .editOrNewSpec()
                    .withTaints(taints.stream().map(TaintBuilder::build).toList())
                    .endSpec()
                    .build());
  }
}
