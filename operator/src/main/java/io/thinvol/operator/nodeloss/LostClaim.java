package io.thinvol.operator.nodeloss;

import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import java.util.Optional;

/**
 * A claim bound to a thinvol volume pinned to a lost node: its pods cannot start anywhere, and its
 * data is only on that node's disk.
 *
 * @param volume the PersistentVolume's name
 * @param health what makes the node lost
 */
record LostClaim(
    String namespace, String name, String uid, String volume, String node, NodeHealth health) {

  /**
   * The claim a volume is bound to: phase Bound with a claim reference. A move's own temporary
   * claims ({@code thinvol-move-*}) are the move's to report, not an application's.
   */
  static Optional<ObjectReference> boundClaim(PersistentVolume volume) {
    ObjectReference ref = volume.getSpec() == null ? null : volume.getSpec().getClaimRef();
    boolean bound = volume.getStatus() != null && "Bound".equals(volume.getStatus().getPhase());
    if (!bound || ref == null || ref.getName() == null || ref.getNamespace() == null) {
      return Optional.empty();
    }
    return ref.getName().startsWith("thinvol-move-") ? Optional.empty() : Optional.of(ref);
  }

  /** {@code namespace/name}, as {@code kubectl} names it. */
  String qualified() {
    return namespace + "/" + name;
  }

  /** The claim as an Event's involved object names it (no read of the claim needed). */
  PersistentVolumeClaim reference() {
    return new PersistentVolumeClaimBuilder()
        .withNewMetadata()
        .withNamespace(namespace)
        .withName(name)
        .withUid(uid)
        .endMetadata()
        .build();
  }
}
