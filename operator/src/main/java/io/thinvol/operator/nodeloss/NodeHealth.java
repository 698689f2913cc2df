package io.thinvol.operator.nodeloss;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.Taint;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Optional;

/**
 * A node as the volumes on it see it. {@link State#LOST} is the Kubernetes contract for a node that
 * will not come back with its disk: its Node was deleted, or it carries the {@value
 * #OUT_OF_SERVICE} taint (non-graceful node shutdown). {@link State#NOT_READY} is what a reboot, a
 * kubelet restart or a network partition look like as well: its Ready condition is False or
 * Unknown, or it carries the {@value #UNREACHABLE} taint; nothing that destroys data may follow
 * from it alone. A Node without a Ready condition (one its kubelet never reported on) counts as
 * Ready: nothing says otherwise.
 *
 * @param since when the node left Ready or was tainted, where the Node says; else null
 * @param detail what the Node says, for a message, e.g. {@code NodeStatusUnknown: Kubelet stopped
 *     posting node status.}; empty when Ready
 */
public record NodeHealth(State state, Instant since, String detail) {

  public static final String OUT_OF_SERVICE = "node.kubernetes.io/out-of-service";
  public static final String UNREACHABLE = "node.kubernetes.io/unreachable";

  /** How usable a node's volumes are. */
  public enum State {
    READY,
    NOT_READY,
    LOST
  }

  public static final NodeHealth READY = new NodeHealth(State.READY, null, "");

  /** The health of a node as its Node object says, absent when the Node does not exist. */
  public static NodeHealth of(Optional<Node> found) {
    if (found.isEmpty()) {
      return new NodeHealth(State.LOST, null, "its Node was deleted");
    }
    Node node = found.get();
    Optional<Taint> outOfService = taint(node, OUT_OF_SERVICE);
    if (outOfService.isPresent()) {
      return new NodeHealth(
          State.LOST, time(outOfService.get().getTimeAdded()), "it is tainted " + OUT_OF_SERVICE);
    }
    Optional<NodeCondition> ready =
        Optional.ofNullable(node.getStatus())
            .map(status -> status.getConditions())
            .orElse(List.of())
            .stream()
            .filter(c -> "Ready".equals(c.getType()))
            .findFirst();
    if (ready.isPresent() && !"True".equals(ready.get().getStatus())) {
      NodeCondition condition = ready.get();
      String said =
          condition.getReason() == null
              ? "Ready is " + condition.getStatus()
              : condition.getReason()
                  + (condition.getMessage() == null ? "" : ": " + condition.getMessage());
      return new NodeHealth(State.NOT_READY, time(condition.getLastTransitionTime()), said);
    }
    Optional<Taint> unreachable = taint(node, UNREACHABLE);
    if (unreachable.isPresent()) {
      return new NodeHealth(
          State.NOT_READY, time(unreachable.get().getTimeAdded()), "it is tainted " + UNREACHABLE);
    }
    return READY;
  }

  public boolean ready() {
    return state == State.READY;
  }

  public boolean lost() {
    return state == State.LOST;
  }

  /** {@code NotReady since <time> (<detail>)}, {@code lost (<detail>)}, or {@code Ready}. */
  public String describe() {
    return switch (state) {
      case READY -> "Ready";
      case NOT_READY -> "NotReady" + (since == null ? "" : " since " + since) + " (" + detail + ")";
      case LOST -> "lost (" + detail + (since == null ? "" : " at " + since) + ")";
    };
  }

  private static Optional<Taint> taint(Node node, String key) {
    return Optional.ofNullable(node.getSpec())
        .map(spec -> spec.getTaints())
        .orElse(List.of())
        .stream()
        .filter(t -> key.equals(t.getKey()))
        .findFirst();
  }

  private static Instant time(String text) {
    if (text == null) {
      return null;
    }
    try {
      return Instant.parse(text);
    } catch (DateTimeParseException e) {
      return null;
    }
  }
}
