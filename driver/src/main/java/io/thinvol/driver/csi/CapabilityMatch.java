package io.thinvol.driver.csi;

import csi.v1.VolumeCapability;
import io.thinvol.driver.core.CsiException;
import io.thinvol.driver.core.NodeManager;
import io.thinvol.driver.store.VolumeRecord;

/** Whether a requested capability fits an existing volume (ValidateVolumeCapabilities). */
final class CapabilityMatch {

  private CapabilityMatch() {}

  /** Why {@code capability} does not fit {@code volume}, or null when it does. */
  static String refusal(VolumeRecord volume, VolumeCapability capability) {
    try {
      NodeManager.Usage usage = Requests.usage(capability, "volume_capabilities");
      if (usage.accessType() != volume.accessType()) {
        return "volume " + volume.id() + " is a " + volume.accessType() + " volume";
      }
      if (usage.fsType() != null
          && !usage.fsType().isEmpty()
          && !usage.fsType().equals(volume.fsType())) {
        return "volume " + volume.id() + " holds " + volume.fsType() + ", not " + usage.fsType();
      }
      return null;
    } catch (CsiException e) {
      return e.getMessage();
    }
  }
}
