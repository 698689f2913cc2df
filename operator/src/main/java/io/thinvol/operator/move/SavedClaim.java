package io.thinvol.operator.move;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimSpec;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The moving claim as it was before the cut-over deleted it, kept on the old volume (annotation
 * {@value MoveNames#SAVED_CLAIM}, written with the Retain policy in one patch): an operator that
 * restarts after the deletion re-creates the claim from it, forward or back.
 */
@JsonInclude(JsonInclude.Include.NON_EMPTY)
record SavedClaim(
    Map<String, String> labels,
    Map<String, String> annotations,
    List<OwnerReference> ownerReferences,
    PersistentVolumeClaimSpec spec) {

  SavedClaim {
    labels = labels == null ? Map.of() : labels;
    annotations = annotations == null ? Map.of() : annotations;
    ownerReferences = ownerReferences == null ? List.of() : ownerReferences;
  }

  static SavedClaim of(PersistentVolumeClaim claim) {
    PersistentVolumeClaimSpec spec = Serialization.clone(claim.getSpec());
    spec.setVolumeName(null);
    return new SavedClaim(
        claim.getMetadata().getLabels(),
        claim.getMetadata().getAnnotations(),
        claim.getMetadata().getOwnerReferences(),
        spec);
  }

  String json() {
    return Serialization.asJson(this);
  }

  /** The claim kept on a volume, if the volume holds one. */
  static Optional<SavedClaim> on(io.fabric8.kubernetes.api.model.PersistentVolume volume) {
    return Optional.ofNullable(volume.getMetadata().getAnnotations())
        .map(a -> a.get(MoveNames.SAVED_CLAIM))
        .map(json -> Serialization.unmarshal(json, SavedClaim.class));
  }
}
