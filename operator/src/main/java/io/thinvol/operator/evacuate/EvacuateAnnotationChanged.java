package io.thinvol.operator.evacuate;

import io.fabric8.kubernetes.api.model.Node;
import io.javaoperatorsdk.operator.processing.event.source.filter.OnUpdateFilter;
import java.util.Objects;

/**
 * Of a node's own changes only its {@code thinvol.io/evacuate} annotation matters; the kubelet's
 * status writes (every few seconds on every node) are not worth a reconcile. An annotation is
 * metadata, which leaves a Node's generation as it is, so generation-aware filtering would miss it.
 */
public final class EvacuateAnnotationChanged implements OnUpdateFilter<Node> {

  @Override
  public boolean accept(Node updated, Node old) {
    return !Objects.equals(EvacuateRequest.value(updated), EvacuateRequest.value(old));
  }
}
