package io.thinvol.operator.nodeloss;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.informers.cache.ReducedStateItemStore;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import java.util.Optional;

/**
 * A watch of the cluster's Nodes that keeps of each only what {@link NodeHealth} reads: its name,
 * uid, taints and conditions. A Node's status also lists its images and more, tens of kilobytes on
 * a busy node; a cache of those for every node of a large cluster would be the operator's largest.
 */
public final class NodeCache {

  private static final String[] FIELDS = {"metadata.uid", "spec.taints", "status.conditions"};

  private NodeCache() {}

  /** A Node event source's configuration for {@code primary}'s controller, under {@code name}. */
  public static <P extends HasMetadata> InformerEventSourceConfiguration.Builder<Node> of(
      String name, Class<P> primary, EventSourceContext<P> context) {
    return InformerEventSourceConfiguration.from(Node.class, primary)
        .withName(name)
        .withItemStore(
            new ReducedStateItemStore<>(
                ReducedStateItemStore.NAME_KEY_STATE,
                Node.class,
                context.getClient().getKubernetesSerialization(),
                FIELDS));
  }

  /** Whether a node's health changed between two versions of its Node. */
  public static boolean healthChanged(Node before, Node after) {
    return !NodeHealth.of(Optional.ofNullable(before))
        .equals(NodeHealth.of(Optional.ofNullable(after)));
  }
}
