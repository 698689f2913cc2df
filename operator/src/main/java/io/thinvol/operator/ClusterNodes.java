package io.thinvol.operator;

import io.fabric8.kubernetes.api.model.Node;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import io.thinvol.api.v1alpha1.StorageBackend;
import java.util.Optional;
import java.util.Set;

/**
 * The cluster's Nodes, cached to check a node selector against the nodes that hold volumes. A
 * node's changes (its status is written every few minutes) reconcile nothing.
 */
final class ClusterNodes {

  private volatile InformerEventSource<Node, StorageBackend> source;

  InformerEventSource<Node, StorageBackend> eventSource(
      EventSourceContext<StorageBackend> context) {
    source =
        new InformerEventSource<>(
            InformerEventSourceConfiguration.from(Node.class, StorageBackend.class)
                .withSecondaryToPrimaryMapper(node -> Set.of())
                .build(),
            context);
    return source;
  }

  Optional<Node> named(String name) {
    InformerEventSource<Node, StorageBackend> informer = source;
    return informer == null ? Optional.empty() : informer.get(new ResourceID(name));
  }
}
