package io.thinvol.operator.move;

import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimSpec;
import io.fabric8.kubernetes.api.model.TypedLocalObjectReferenceBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The claims of a move: the base claim on the target node (the pre-copy), the entitlement claim of
 * the cut-over's copy, and the moving claim re-created, bound to its new volume or, on a rollback,
 * to its old one.
 */
final class ClaimObjects {

  private static final String SELECTED_NODE = "volume.kubernetes.io/selected-node";

  private ClaimObjects() {}

  /**
   * Restored from S1 on the target node: its external-provisioner pulls S1 from the source node. No
   * pod ever uses it; its volume is the base the cut-over's copy applies the changes onto.
   */
  static PersistentVolumeClaim base(MoveNames names, PersistentVolumeClaim claim, String target) {
    PersistentVolumeClaim base =
        restored(names, names.baseClaim(), claim.getSpec(), names.preSnapshot());
    base.getMetadata().setAnnotations(Map.of(SELECTED_NODE, target));
    return base;
  }

  /**
   * The claim entitled to S2: the target's driver copies S2 only for a claim whose data source it
   * is. Pre-bound to the new volume's name, so that no provisioner acts on it.
   */
  static PersistentVolumeClaim entitlement(MoveNames names, SavedClaim claim) {
    PersistentVolumeClaim entitled = restored(names, names.cut(), claim.spec(), names.cut());
    entitled.getSpec().setVolumeName(names.newVolume());
    return entitled;
  }

  /** A claim of the move like {@code source}'s, restored from {@code snapshot}. */
  private static PersistentVolumeClaim restored(
      MoveNames names, String name, PersistentVolumeClaimSpec source, String snapshot) {
    return new PersistentVolumeClaimBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace(names.namespace())
        .withLabels(names.labels())
        .endMetadata()
        .withNewSpec()
        .withStorageClassName(source.getStorageClassName())
        .withAccessModes(source.getAccessModes())
        .withVolumeMode(source.getVolumeMode())
        .withResources(source.getResources())
        .withDataSource(
            new TypedLocalObjectReferenceBuilder()
                .withApiGroup("snapshot.storage.k8s.io")
                .withKind("VolumeSnapshot")
                .withName(snapshot)
                .build())
        .endSpec()
        .build();
  }

  /**
   * The moving claim again, bound ahead to {@code volume}: its labels, annotations (but those of
   * its old binding) and owners, marked as the move's (the only create the cut-over's admission
   * policy lets through).
   */
  static PersistentVolumeClaim recreated(
      MoveNames names, String moveName, SavedClaim claim, String volume) {
    Map<String, String> annotations = new LinkedHashMap<>(claim.annotations());
    MoveNames.BINDING_ANNOTATIONS.forEach(annotations::remove);
    annotations.put(MoveNames.MOVED_BY, moveName);
    PersistentVolumeClaimSpec spec = Serialization.clone(claim.spec());
    spec.setVolumeName(volume);
    ObjectMeta metadata = new ObjectMeta();
    metadata.setName(names.claim());
    metadata.setNamespace(names.namespace());
    metadata.setLabels(claim.labels().isEmpty() ? null : new LinkedHashMap<>(claim.labels()));
    metadata.setAnnotations(annotations);
    metadata.setOwnerReferences(claim.ownerReferences().isEmpty() ? null : claim.ownerReferences());
    PersistentVolumeClaim recreated = new PersistentVolumeClaim();
    recreated.setMetadata(metadata);
    recreated.setSpec(spec);
    return recreated;
  }
}
