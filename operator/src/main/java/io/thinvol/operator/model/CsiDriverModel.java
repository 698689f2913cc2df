package io.thinvol.operator.model;

import io.fabric8.kubernetes.api.model.storage.CSIDriver;
import io.fabric8.kubernetes.api.model.storage.CSIDriverBuilder;
import io.thinvol.api.v1alpha1.StorageBackend;
import java.util.List;

/**
 * The CSIDriver object: no attach step (volumes are local), pod info on mount, fsGroup applied by
 * kubelet, and storage capacity tracking so the scheduler only picks nodes with room.
 * attachRequired and volumeLifecycleModes are immutable: a change means delete and recreate.
 */
public final class CsiDriverModel {

  private CsiDriverModel() {}

  public static CSIDriver desired(StorageBackend backend) {
    return new CSIDriverBuilder()
        .withNewMetadata()
        .withName(Names.driver(backend))
        .withLabels(Names.labels(backend))
        .endMetadata()
        .withNewSpec()
        .withAttachRequired(false)
        .withPodInfoOnMount(true)
        .withFsGroupPolicy("File")
        .withStorageCapacity(true)
        .withRequiresRepublish(false)
        .withVolumeLifecycleModes(List.of("Persistent"))
        .endSpec()
        .build();
  }

  /** Whether {@code actual} differs from {@code desired} in a field the API will not update. */
  public static boolean needsRecreate(CSIDriver actual, CSIDriver desired) {
    return !java.util.Objects.equals(
            actual.getSpec().getAttachRequired(), desired.getSpec().getAttachRequired())
        || !java.util.Objects.equals(
            actual.getSpec().getVolumeLifecycleModes(),
            desired.getSpec().getVolumeLifecycleModes());
  }
}
