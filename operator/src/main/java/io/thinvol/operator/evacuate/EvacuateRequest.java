package io.thinvol.operator.evacuate;

import io.fabric8.kubernetes.api.model.Node;
import io.thinvol.api.v1alpha1.VolumeMove;
import java.util.Map;
import java.util.Optional;

/**
 * What a node's {@value VolumeMove#EVACUATE} annotation asks for. Only {@code true} and {@code
 * false} are understood; anything else changes nothing (neither starts nor stops an evacuation),
 * since a typo must not withdraw moves that are copying, nor start moving volumes.
 */
record EvacuateRequest(Kind kind, String value) {

  enum Kind {
    /** {@code true}: move every thinvol volume off the node. */
    EVACUATE,
    /** {@code false} or no annotation: no evacuation; one under way is stopped. */
    STOP,
    /** Any other value: nothing changes, a Warning says what is accepted. */
    NOT_UNDERSTOOD
  }

  static final String ACCEPTED =
      "accepted: \"true\" (move every thinvol volume off this node) or \"false\" (stop)";

  static EvacuateRequest of(Node node) {
    Optional<String> value = value(node);
    if (value.isEmpty() || value.get().equals("false")) {
      return new EvacuateRequest(Kind.STOP, value.orElse(null));
    }
    if (value.get().equals("true")) {
      return new EvacuateRequest(Kind.EVACUATE, value.get());
    }
    return new EvacuateRequest(Kind.NOT_UNDERSTOOD, value.get());
  }

  static Optional<String> value(Node node) {
    Map<String, String> annotations = node.getMetadata().getAnnotations();
    return annotations == null
        ? Optional.empty()
        : Optional.ofNullable(annotations.get(VolumeMove.EVACUATE));
  }

  /** The Warning's message for a value that is not understood. */
  String notUnderstood() {
    return VolumeMove.EVACUATE
        + "=\""
        + value
        + "\" is not understood, so nothing was started or stopped; "
        + ACCEPTED;
  }
}
