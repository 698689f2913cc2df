package io.thinvol.operator.evacuate;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.thinvol.api.v1alpha1.MovePhase;
import io.thinvol.api.v1alpha1.VolumeMove;
import io.thinvol.api.v1alpha1.VolumeMoveSpec;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The VolumeMoves an evacuation makes: {@code evacuate-<volume>} in the claim's namespace, labelled
 * {@value VolumeMove#EVACUATED_NODE}={@code <node>} (what {@code kubectl get volmove -l} selects
 * on), no target node (the move chooses one) and no owner.
 */
final class EvacuationMoves {

  static final String PREFIX = "evacuate-";

  /** An object name's limit (a DNS subdomain). */
  private static final int MAX_NAME = 253;

  /** A label value's limit; a node's name may be longer (up to {@value #MAX_NAME}). */
  private static final int MAX_LABEL_VALUE = 63;

  /** A move the evacuation may still take back: nothing of the claim has been touched yet. */
  private static final Set<MovePhase> WITHDRAWABLE =
      Set.of(MovePhase.Pending, MovePhase.PreCopying, MovePhase.WaitingForCutOver);

  private EvacuationMoves() {}

  /** The move of a volume, named after it: one volume, one evacuation move, whatever happens. */
  static String name(PersistentVolume volume) {
    String name = PREFIX + volume.getMetadata().getName();
    return name.length() <= MAX_NAME ? name : shortened(name, MAX_NAME);
  }

  static VolumeMove of(PersistentVolume volume, ObjectReference claim, String node) {
    VolumeMove move = new VolumeMove();
    move.setMetadata(
        new ObjectMetaBuilder()
            .withName(name(volume))
            .withNamespace(claim.getNamespace())
            .withLabels(Map.of(VolumeMove.EVACUATED_NODE, labelValue(node)))
            // the node's whole name, where the label had to shorten it
            .withAnnotations(Map.of(VolumeMove.EVACUATED_NODE, node))
            .build());
    VolumeMoveSpec spec = new VolumeMoveSpec();
    spec.setPersistentVolumeClaim(claim.getName());
    move.setSpec(spec);
    return move;
  }

  /** The label value naming a node: its name, shortened with a digest where it is too long. */
  static String labelValue(String node) {
    return node.length() <= MAX_LABEL_VALUE ? node : shortened(node, MAX_LABEL_VALUE);
  }

  /** The node whose evacuation made a move; empty for a move someone else made. */
  static Optional<String> nodeOf(VolumeMove move) {
    Map<String, String> labels = move.getMetadata().getLabels();
    if (labels == null || !labels.containsKey(VolumeMove.EVACUATED_NODE)) {
      return Optional.empty();
    }
    Map<String, String> annotations = move.getMetadata().getAnnotations();
    String node = annotations == null ? null : annotations.get(VolumeMove.EVACUATED_NODE);
    return Optional.of(node != null ? node : labels.get(VolumeMove.EVACUATED_NODE));
  }

  static Optional<MovePhase> phase(VolumeMove move) {
    return Optional.ofNullable(move.getStatus()).map(s -> s.getPhase());
  }

  /** Not yet cutting over, nor ended (a move the move reconciler has not seen has no phase). */
  static boolean withdrawable(VolumeMove move) {
    return phase(move).map(WITHDRAWABLE::contains).orElse(true);
  }

  /** Ended, one way or the other. */
  static boolean ended(VolumeMove move) {
    return phase(move).filter(p -> p == MovePhase.Succeeded || p == MovePhase.Failed).isPresent();
  }

  static boolean in(VolumeMove move, MovePhase phase) {
    return phase(move).filter(p -> p == phase).isPresent();
  }

  /** Its first characters and a digest of the whole, within {@code limit}, ending alphanumeric. */
  private static String shortened(String text, int limit) {
    String digest = Digest.hex(text, 10);
    String head = text.substring(0, limit - digest.length() - 1).replaceAll("[^a-z0-9]+$", "");
    return head + "-" + digest;
  }
}
