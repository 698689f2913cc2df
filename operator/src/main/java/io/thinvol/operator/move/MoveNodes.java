package io.thinvol.operator.move;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import io.thinvol.api.v1alpha1.VolumeMove;
import io.thinvol.operator.nodeloss.NodeCache;
import io.thinvol.operator.nodeloss.NodeHealth;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The health of the moves' nodes, from a watch of the Nodes: a node that leaves Ready, comes back
 * or is deleted wakes the moves from or to it at once. A node the cache does not hold is looked up
 * once more on the API server before it counts as deleted (a Node made a moment ago may not have
 * reached the cache).
 */
final class MoveNodes {

  private final KubernetesClient client;
  private volatile InformerEventSource<Node, VolumeMove> source;

  MoveNodes(KubernetesClient client) {
    this.client = client;
  }

  InformerEventSource<Node, VolumeMove> eventSource(EventSourceContext<VolumeMove> context) {
    source =
        new InformerEventSource<>(
            NodeCache.of("move-nodes", VolumeMove.class, context)
                .withOnUpdateFilter((after, before) -> NodeCache.healthChanged(before, after))
                .withSecondaryToPrimaryMapper(
                    node ->
                        context
                            .getPrimaryCache()
                            .list(move -> on(move, node.getMetadata().getName()))
                            .map(ResourceID::fromResource)
                            .collect(Collectors.toSet()))
                .build(),
            context);
    return source;
  }

  NodeHealth health(String node) {
    InformerEventSource<Node, VolumeMove> informer = source;
    Optional<Node> cached =
        informer == null ? Optional.empty() : informer.get(new ResourceID(node));
    return NodeHealth.of(
        cached.isPresent() ? cached : Optional.ofNullable(client.nodes().withName(node).get()));
  }

  private static boolean on(VolumeMove move, String node) {
    return move.getStatus() != null
        && !MoveStatusModel.ended(move)
        && (Objects.equals(node, move.getStatus().getSourceNode())
            || Objects.equals(node, move.getStatus().getTargetNode()));
  }
}
