package io.thinvol.operator;

import io.fabric8.kubernetes.api.model.storage.CSINode;
import io.fabric8.kubernetes.api.model.storage.CSINodeDriver;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import io.thinvol.api.v1alpha1.StorageBackend;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Where the kubelet has registered each backend's driver (CSINode objects). A change to a CSINode
 * reconciles the backends whose drivers it lists, so the status follows registrations.
 */
final class Registrations {

  private static final String SUFFIX = "." + StorageBackend.GROUP;
  private volatile InformerEventSource<CSINode, StorageBackend> source;

  InformerEventSource<CSINode, StorageBackend> eventSource(
      EventSourceContext<StorageBackend> context) {
    source =
        new InformerEventSource<>(
            InformerEventSourceConfiguration.from(CSINode.class, StorageBackend.class)
                .withSecondaryToPrimaryMapper(
                    node ->
                        drivers(node).stream()
                            .filter(name -> name.endsWith(SUFFIX))
                            .map(
                                name ->
                                    new ResourceID(
                                        name.substring(0, name.length() - SUFFIX.length())))
                            .collect(Collectors.toSet()))
                .build(),
            context);
    return source;
  }

  /** Names of the nodes whose kubelet has registered {@code driver}. */
  Set<String> nodesWith(String driver) {
    InformerEventSource<CSINode, StorageBackend> informer = source;
    if (informer == null) {
      return Set.of();
    }
    return informer
        .list(node -> drivers(node).contains(driver))
        .map(node -> node.getMetadata().getName())
        .collect(Collectors.toSet());
  }

  private static List<String> drivers(CSINode node) {
    if (node.getSpec() == null || node.getSpec().getDrivers() == null) {
      return List.of();
    }
    return node.getSpec().getDrivers().stream().map(CSINodeDriver::getName).toList();
  }
}
