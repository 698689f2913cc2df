package io.thinvol.operator.evacuate;

import io.fabric8.kubernetes.api.model.Node;
import io.thinvol.api.v1alpha1.VolumeMove;
import java.util.List;
import java.util.Objects;

/**
 * The Events of an evacuation, on its Node, for {@code kubectl describe node}: what was started,
 * what holds it up, when it is done or stopped. Each is said once ({@link NodeEvents}), keyed by
 * the moves it is about.
 */
final class EvacuationAnnouncements {

  private final NodeEvents events;

  EvacuationAnnouncements(NodeEvents events) {
    this.events = events;
  }

  /**
   * @param made the uids of the moves just made
   * @param toMove the volumes still to move, those included
   */
  void evacuating(Node node, List<String> made, int toMove) {
    String name = node.getMetadata().getName();
    events.once(
        node,
        "Normal",
        "Evacuating",
        String.join(",", made),
        volumes(toMove)
            + " to move off "
            + name
            + (made.size() < toMove ? " (" + made.size() + " new)" : "")
            + "; kubectl get volmove -A -l "
            + VolumeMove.EVACUATED_NODE
            + "="
            + EvacuationMoves.labelValue(name));
  }

  /**
   * A claim on the node that a move the evacuation did not make moves already: said, since
   * otherwise the evacuation would pass over it in silence while that move waits (e.g. in Pending
   * for a target), and the node would never be Evacuated with nothing telling why.
   */
  void leftToOtherMove(Node node, VolumeMove other) {
    String move = other.getMetadata().getNamespace() + "/" + other.getMetadata().getName();
    events.once(
        node,
        "Normal",
        "EvacuationWaitsForMove",
        other.getMetadata().getUid(),
        "PersistentVolumeClaim "
            + other.getMetadata().getNamespace()
            + "/"
            + other.getSpec().getPersistentVolumeClaim()
            + " is moved by VolumeMove "
            + move
            + " ("
            + EvacuationMoves.phase(other).map(Enum::name).orElse("not begun")
            + "), which this evacuation did not make: its volume is left to that move; if the"
            + " move fails or is deleted, the evacuation moves the claim off "
            + node.getMetadata().getName()
            + " itself");
  }

  void nameTaken(Node node, String move) {
    events.once(
        node,
        "Warning",
        "EvacuationNameTaken",
        move,
        "a VolumeMove "
            + move
            + " exists that this evacuation did not make; its volume is not moved off "
            + node.getMetadata().getName()
            + " until it is deleted");
  }

  void stalled(Node node, VolumeMove failed) {
    events.once(
        node,
        "Warning",
        "EvacuationStalled",
        failed.getMetadata().getUid(),
        "VolumeMove "
            + failed.getMetadata().getNamespace()
            + "/"
            + failed.getMetadata().getName()
            + " of claim "
            + failed.getSpec().getPersistentVolumeClaim()
            + " failed: "
            + Objects.requireNonNullElse(failed.getStatus().getMessage(), "no message")
            + "; the claim is still on "
            + node.getMetadata().getName()
            + ". Delete the move to try again (the evacuation makes a new one)");
  }

  void evacuated(Node node, List<VolumeMove> moves) {
    String name = node.getMetadata().getName();
    events.once(
        node,
        "Normal",
        "Evacuated",
        uids(moves),
        moves.isEmpty()
            ? "no thinvol volume on " + name + "; nothing to move"
            : "all " + volumes(moves.size()) + " moved off " + name);
  }

  /**
   * @param withdrawn the moves deleted
   * @param kept the node's moves left: cutting over or ended
   */
  void stopped(Node node, List<VolumeMove> withdrawn, int kept) {
    events.once(
        node,
        "Normal",
        "EvacuationStopped",
        uids(withdrawn),
        "evacuation of "
            + node.getMetadata().getName()
            + " stopped: "
            + withdrawn.size()
            + (withdrawn.size() == 1 ? " VolumeMove" : " VolumeMoves")
            + " not yet cutting over deleted"
            + (kept == 0 ? "" : "; " + kept + " kept (cutting over or ended)"));
  }

  void notUnderstood(Node node, EvacuateRequest request) {
    events.once(node, "Warning", "EvacuateNotUnderstood", request.value(), request.notUnderstood());
  }

  private static String volumes(int count) {
    return count + (count == 1 ? " volume" : " volumes");
  }

  private static String uids(List<VolumeMove> moves) {
    return String.join(",", moves.stream().map(m -> m.getMetadata().getUid()).sorted().toList());
  }
}
