package io.thinvol.operator.move;

import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.api.v1alpha1.VolumeMove;
import java.util.Map;

/**
 * The names of what a move makes, derived from the move alone so that an operator that restarts
 * finds them again: {@code thinvol-move-<id>-...}, id the first 8 characters of the move's uid.
 */
final class MoveNames {

  /** Label on every object a move makes: the move's name. */
  static final String MOVE_LABEL = StorageBackend.GROUP + "/volume-move";

  /** On the re-created claim (and the only way past the cut-over's admission policy). */
  static final String MOVED_BY = StorageBackend.GROUP + "/moved-by";

  /** On the old volume while a move holds it at Retain: {@code <namespace>/<move>}. */
  static final String VOLUME_MOVE = StorageBackend.GROUP + "/volume-move";

  /** On the old volume: the claim as it was before the cut-over deleted it (JSON). */
  static final String SAVED_CLAIM = StorageBackend.GROUP + "/volume-move-claim";

  /** The finalizer on a VolumeMove: the cut-over finishes or rolls back before it goes. */
  static final String FINALIZER = StorageBackend.GROUP + "/volume-move";

  /** Annotations of a bound claim that describe its old binding, not the claim. */
  static final java.util.List<String> BINDING_ANNOTATIONS =
      java.util.List.of(
          "pv.kubernetes.io/bind-completed",
          "pv.kubernetes.io/bound-by-controller",
          "volume.kubernetes.io/selected-node");

  private final VolumeMove move;

  MoveNames(VolumeMove move) {
    this.move = move;
  }

  String id() {
    return move.getMetadata().getUid().replace("-", "").substring(0, 8);
  }

  String namespace() {
    return move.getMetadata().getNamespace();
  }

  String claim() {
    return move.getSpec().getPersistentVolumeClaim();
  }

  /** S1, the pre-copy's snapshot. */
  String preSnapshot() {
    return "thinvol-move-" + id() + "-pre";
  }

  /** The claim on the target node restored from S1. */
  String baseClaim() {
    return "thinvol-move-" + id() + "-base";
  }

  /** S2 (snapshot and content), and the claim entitled to copy it. */
  String cut() {
    return "thinvol-move-" + id() + "-cut";
  }

  /** S2's name on the source node's driver (a snapshot name, unique to the move). */
  String cutSnapshot() {
    return newVolume() + "-cut";
  }

  /** The ValidatingAdmissionPolicy and its binding. */
  String window() {
    return "thinvol-move-" + id();
  }

  /** The new PersistentVolume, and the new volume's name on the target node. */
  String newVolume() {
    return "thinvol-move-" + move.getMetadata().getUid();
  }

  /** {@code <namespace>/<move>}, as the old volume's annotation names the move. */
  String qualified() {
    return namespace() + "/" + move.getMetadata().getName();
  }

  Map<String, String> labels() {
    return Map.of(MOVE_LABEL, move.getMetadata().getName());
  }
}
