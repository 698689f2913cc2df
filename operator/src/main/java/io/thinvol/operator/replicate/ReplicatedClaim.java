package io.thinvol.operator.replicate;

import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import java.util.Map;

/**
 * A valid replication's claim: bound to {@code volume}, a volume of {@code driver} (backend {@code
 * backend}) on {@code node}, replicated as {@code parameters} say.
 *
 * @param storageClassParameters the claim's StorageClass parameters, which a first replica keeps
 */
record ReplicatedClaim(
    PersistentVolumeClaim claim,
    PersistentVolume volume,
    String driver,
    String backend,
    String node,
    ClassParameters parameters,
    Map<String, String> storageClassParameters) {

  /** The volume's handle on its node. */
  String handle() {
    return volume.getSpec().getCsi().getVolumeHandle();
  }

  String storageClass() {
    return claim.getSpec().getStorageClassName();
  }
}
