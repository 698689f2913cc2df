package io.thinvol.operator.evacuate;

import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.thinvol.api.BackendNames;
import io.thinvol.api.kube.VolumeNodes;
import java.util.List;
import java.util.Optional;

/** The PersistentVolumes an evacuation moves: a thinvol driver's, on the node, bound to a claim. */
final class NodeVolumes {

  /**
   * The claims a move makes for itself (base, entitlement) start so (the VolumeMove contract). One
   * pinned to an evacuated node is a move's temporary, which that move deletes; moving it would
   * copy a copy.
   */
  static final String MOVE_TEMPORARY_PREFIX = "thinvol-move-";

  private NodeVolumes() {}

  /** The nodes a thinvol driver's volume is pinned to; none for any other driver's. */
  static List<String> nodesOf(PersistentVolume volume) {
    return thinvol(volume) ? VolumeNodes.of(volume) : List.of();
  }

  /** Whether the evacuation of {@code node} moves this volume. */
  static boolean toMove(PersistentVolume volume, String node) {
    return volume.getMetadata().getDeletionTimestamp() == null
        && nodesOf(volume).contains(node)
        && claim(volume).isPresent();
  }

  /**
   * The claim a volume is bound to: a claimRef and phase Bound (a Released volume's claim is gone
   * or bound elsewhere, e.g. after its move), and not a move's temporary.
   */
  static Optional<ObjectReference> claim(PersistentVolume volume) {
    ObjectReference ref = volume.getSpec() == null ? null : volume.getSpec().getClaimRef();
    boolean bound = volume.getStatus() != null && "Bound".equals(volume.getStatus().getPhase());
    if (!bound || ref == null || ref.getNamespace() == null || ref.getName() == null) {
      return Optional.empty();
    }
    return ref.getName().startsWith(MOVE_TEMPORARY_PREFIX) ? Optional.empty() : Optional.of(ref);
  }

  private static boolean thinvol(PersistentVolume volume) {
    return volume.getSpec() != null
        && volume.getSpec().getCsi() != null
        && BackendNames.backendOfDriver(volume.getSpec().getCsi().getDriver()).isPresent();
  }
}
