package io.thinvol.operator.move;

import io.fabric8.kubernetes.api.model.NodeSelectorRequirementBuilder;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.VolumeNodeAffinityBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.thinvol.api.BackendNames;
import java.math.BigDecimal;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/** The volumes of a move: the new one on the target node, and what is written on the old one. */
final class VolumeObjects {

  private static final String PROVISIONED_BY = "pv.kubernetes.io/provisioned-by";

  private VolumeObjects() {}

  /**
   * The new volume: the old one's spec with the copy's handle, the target node in its affinity, a
   * capacity no smaller than the copy, and a claim reference to the moving claim by name (the PV
   * controller binds it to the claim re-created for it).
   */
  static PersistentVolume moved(
      MoveNames names,
      PersistentVolume old,
      String handle,
      long sizeBytes,
      String target,
      String reclaimPolicy) {
    PersistentVolumeSpec spec = Serialization.clone(old.getSpec());
    spec.getCsi().setVolumeHandle(handle);
    Quantity oldSize = spec.getCapacity().get("storage");
    BigDecimal size = BigDecimal.valueOf(sizeBytes);
    if (oldSize == null || Quantity.getAmountInBytes(oldSize).compareTo(size) < 0) {
      Map<String, Quantity> capacity = new HashMap<>(spec.getCapacity());
      capacity.put("storage", new Quantity(String.valueOf(sizeBytes)));
      spec.setCapacity(capacity);
    }
    spec.setNodeAffinity(
        new VolumeNodeAffinityBuilder()
            .withNewRequired()
            .addNewNodeSelectorTerm()
            .withMatchExpressions(
                new NodeSelectorRequirementBuilder()
                    .withKey(BackendNames.TOPOLOGY_KEY)
                    .withOperator("In")
                    .withValues(target)
                    .build())
            .endNodeSelectorTerm()
            .endRequired()
            .build());
    spec.setClaimRef(
        new ObjectReferenceBuilder()
            .withApiVersion("v1")
            .withKind("PersistentVolumeClaim")
            .withNamespace(names.namespace())
            .withName(names.claim())
            .build());
    spec.setPersistentVolumeReclaimPolicy(reclaimPolicy);
    PersistentVolume volume =
        new PersistentVolumeBuilder()
            .withNewMetadata()
            .withName(names.newVolume())
            .withLabels(names.labels())
            .withAnnotations(Map.of(PROVISIONED_BY, spec.getCsi().getDriver()))
            .endMetadata()
            .build();
    volume.setSpec(spec);
    return volume;
  }

  /**
   * The new volume of a move that rolled back: bound to a claim that never existed, with the Delete
   * policy, so that the target's provisioner deletes it as it deletes any released volume.
   */
  static PersistentVolume discarded(
      MoveNames names, PersistentVolume old, String handle, String target) {
    PersistentVolume volume = moved(names, old, handle, 0, target, "Delete");
    volume.getSpec().getClaimRef().setName(names.cut());
    volume.getSpec().getClaimRef().setUid(discardedClaimUid(names));
    return volume;
  }

  /**
   * The new volume of a move that rolled back while its source node is lost, kept ({@link
   * KeptCopy}): bound to the copy's claim, which is pre-bound to it.
   */
  static PersistentVolume kept(
      MoveNames names, PersistentVolume old, String handle, String target, String reclaimPolicy) {
    PersistentVolume volume = moved(names, old, handle, 0, target, reclaimPolicy);
    volume.getSpec().getClaimRef().setName(names.cut());
    return volume;
  }

  /** The new volume, made for the moving claim or discarded, bound to the copy's claim instead. */
  static String keptPatch(MoveNames names, String reclaimPolicy) {
    return copyClaimPatch(names, null, reclaimPolicy);
  }

  /** A claim uid no claim has: the move's id in a uid no API server hands out. */
  static String discardedClaimUid(MoveNames names) {
    return "00000000-0000-0000-0000-0000" + names.id();
  }

  /**
   * A volume of the target bound to a claim that never existed ({@link #discardedClaimUid}), so
   * that nothing binds it, with {@code reclaimPolicy}: Delete lets the target's provisioner delete
   * it, Retain keeps it.
   */
  static String unclaimedPatch(MoveNames names, String reclaimPolicy) {
    return copyClaimPatch(names, discardedClaimUid(names), reclaimPolicy);
  }

  /** The volume's claim reference to the copy's claim, of {@code uid} (null: any such claim). */
  private static String copyClaimPatch(MoveNames names, String uid, String reclaimPolicy) {
    Map<String, Object> claimRef = new HashMap<>();
    claimRef.put("name", names.cut());
    claimRef.put("uid", uid);
    claimRef.put("resourceVersion", null);
    return Serialization.asJson(
        Map.of(
            "spec", Map.of("claimRef", claimRef, "persistentVolumeReclaimPolicy", reclaimPolicy)));
  }

  /**
   * The old volume held for the move: Retain, so that the deletion of its claim cannot delete it,
   * the move's name, and the claim as it was.
   */
  static String holdPatch(MoveNames names, SavedClaim claim) {
    Map<String, Object> annotations = new LinkedHashMap<>();
    annotations.put(MoveNames.VOLUME_MOVE, names.qualified());
    annotations.put(MoveNames.SAVED_CLAIM, claim.json());
    return Serialization.asJson(
        Map.of(
            "metadata",
            Map.of("annotations", annotations),
            "spec",
            Map.of("persistentVolumeReclaimPolicy", "Retain")));
  }

  /** The old volume let go: its policy as it was, the move's annotations gone. */
  static String releasePatch(String reclaimPolicy) {
    Map<String, Object> annotations = new HashMap<>();
    annotations.put(MoveNames.VOLUME_MOVE, null);
    annotations.put(MoveNames.SAVED_CLAIM, null);
    return Serialization.asJson(
        Map.of(
            "metadata",
            Map.of("annotations", annotations),
            "spec",
            Map.of("persistentVolumeReclaimPolicy", reclaimPolicy)));
  }

  /**
   * The old volume made Available to its claim's name again (a rollback): the claim reference keeps
   * namespace and name, loses the uid of the deleted claim.
   */
  static String reopenPatch() {
    Map<String, Object> claimRef = new HashMap<>();
    claimRef.put("uid", null);
    claimRef.put("resourceVersion", null);
    return Serialization.asJson(Map.of("spec", Map.of("claimRef", claimRef)));
  }

  /** Whether a move holds the volume (its annotation is on it). */
  static boolean heldBy(PersistentVolume volume, MoveNames names) {
    return volume.getMetadata().getAnnotations() != null
        && names
            .qualified()
            .equals(volume.getMetadata().getAnnotations().get(MoveNames.VOLUME_MOVE));
  }
}
