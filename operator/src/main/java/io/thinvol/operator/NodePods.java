package io.thinvol.operator;

import io.fabric8.kubernetes.api.model.Pod;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.operator.model.Names;
import java.util.Set;

/**
 * The node pods of every backend, watched, so that a pod that crashes or recovers updates its
 * backend's {@code nodeProblems} at once rather than at the next periodic check. Only pods with the
 * node pods' label are cached: one per node and backend.
 */
final class NodePods {

  private NodePods() {}

  static InformerEventSource<Pod, StorageBackend> eventSource(
      EventSourceContext<StorageBackend> context, String namespace) {
    return new InformerEventSource<>(
        InformerEventSourceConfiguration.from(Pod.class, StorageBackend.class)
            .withNamespaces(Set.of(namespace))
            .withLabelSelector(
                "app.kubernetes.io/name=" + Names.NODE_POD_NAME + "," + Names.BACKEND_LABEL)
            .withSecondaryToPrimaryMapper(
                pod -> {
                  String backend = pod.getMetadata().getLabels().get(Names.BACKEND_LABEL);
                  return backend == null ? Set.of() : Set.of(new ResourceID(backend));
                })
            .build(),
        context);
  }
}
