package io.thinvol.operator;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeConditionBuilder;
import io.fabric8.kubernetes.api.model.NodeStatusBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Instant;
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

  /** A node whose kubelet reports it Ready, as a joined node's does, and its pods again. */
  void ready(String name) {
    ready(name, "True", "KubeletReady", "kubelet is posting ready status", Instant.now());
    taints(name, List.of());
    podsReady(name, "True");
  }

  /**
   * The kubelet stopped posting: Ready Unknown, then the NoSchedule and NoExecute taints, and the
   * node's pods marked not Ready (kube-controller-manager's node lifecycle controller does all
   * three once its grace period passed; the kit showed the driver pod's endpoint gone with it).
   */
  void unreachable(String name) {
    unreachable(name, "Kubelet stopped posting node status.");
  }

  /** As {@link #unreachable(String)}, with the node lifecycle controller's {@code message}. */
  void unreachable(String name, String message) {
    ready(name, "Unknown", "NodeStatusUnknown", message, Instant.now().minusSeconds(50));
    String now = Instant.now().toString();
    taints(
        name,
        List.of(
            new TaintBuilder().withKey(UNREACHABLE).withEffect("NoSchedule").withTimeAdded(now),
            new TaintBuilder().withKey(UNREACHABLE).withEffect("NoExecute").withTimeAdded(now)));
    podsReady(name, "False");
  }

  /** An admin's {@code kubectl taint node <name> node.kubernetes.io/out-of-service=...}. */
  void outOfService(String name) {
    client
        .nodes()
        .withName(name)
        .edit(
            n ->
                new NodeBuilder(n)
                    .editOrNewSpec()
                    .addNewTaint()
                    .withKey("node.kubernetes.io/out-of-service")
                    .withValue("nodeshutdown")
                    .withEffect("NoExecute")
                    .endTaint()
                    .endSpec()
                    .build());
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

  /** The node's Ready condition, as its kubelet last posted it at {@code heartbeat}. */
  private void ready(String name, String status, String reason, String message, Instant heartbeat) {
    Node node = client.nodes().withName(name).get();
    node.setStatus(
        new NodeStatusBuilder()
            .withConditions(
                new NodeConditionBuilder()
                    .withType("Ready")
                    .withStatus(status)
                    .withReason(reason)
                    .withMessage(message)
                    .withLastTransitionTime(Instant.now().toString())
                    .withLastHeartbeatTime(heartbeat.toString())
                    .build())
            .build());
    client.nodes().resource(node).updateStatus();
  }

  /**
   * The Ready condition of every pod on the node that has one, as its kubelet or the node
   * controller sets it.
   */
  void podsReady(String node, String status) {
    for (Pod pod :
        client.pods().inAnyNamespace().withField("spec.nodeName", node).list().getItems()) {
      if (pod.getStatus() == null || pod.getStatus().getConditions() == null) {
        continue;
      }
      pod.getStatus().getConditions().stream()
          .filter(c -> "Ready".equals(c.getType()))
          .forEach(c -> c.setStatus(status));
      client.pods().resource(pod).updateStatus();
    }
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
