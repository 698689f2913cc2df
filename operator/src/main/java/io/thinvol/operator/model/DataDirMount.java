package io.thinvol.operator.model;

import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import io.thinvol.api.v1alpha1.SparseFileSpec;
import io.thinvol.api.v1alpha1.StorageBackend;
import java.util.Optional;

/**
 * How the driver sees its data dir. HostToContainer propagation: a disk the admin mounts at the
 * data dir after the driver started reaches the container at once (without it the driver kept
 * writing to the node's root filesystem, and those images later hid under the disk). Not
 * Bidirectional: the driver mounts nothing there that the node must see.
 */
final class DataDirMount {

  static final String VOLUME = "data-dir";

  private DataDirMount() {}

  static VolumeMount mount(Effective effective) {
    return new VolumeMountBuilder()
        .withName(VOLUME)
        .withMountPath(effective.dataDir())
        .withMountPropagation("HostToContainer")
        .build();
  }

  /** The driver's flag: whether the data dir must be a filesystem mounted there. */
  static String flag(StorageBackend backend) {
    boolean dedicated =
        Optional.ofNullable(Effective.spec(backend).getSparseFile())
            .map(SparseFileSpec::getDedicatedMount)
            .orElse(false);
    return "--data-dir-dedicated-mount=" + dedicated;
  }
}
