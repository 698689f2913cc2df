package io.thinvol.driver.csi;

import csi.v1.ControllerModifyVolumeRequest;
import csi.v1.ControllerModifyVolumeResponse;
import io.thinvol.driver.core.VolumeManager;
import io.thinvol.driver.host.IoMode;
import io.thinvol.driver.peer.ModifyForwarding;
import java.time.Duration;
import java.util.Optional;

/**
 * ControllerModifyVolume: checked here, applied here when this node holds the volume, otherwise
 * forwarded to the node that does (when forwarding is configured).
 */
final class VolumeModification {

  // The longest a forwarded call may take when the caller sets no deadline.
  private static final Duration FORWARD_LIMIT = Duration.ofMinutes(1);

  private final VolumeManager volumes;
  private final ModifyForwarding forwarding;

  /**
   * @param forwarding null: a volume of another node is NOT_FOUND (a call a peer forwarded is never
   *     forwarded again)
   */
  VolumeModification(VolumeManager volumes, ModifyForwarding forwarding) {
    this.volumes = volumes;
    this.forwarding = forwarding;
  }

  ControllerModifyVolumeResponse modify(ControllerModifyVolumeRequest request) {
    Optional<IoMode> mode = MutableParameters.requested(request.getMutableParametersMap());
    String volumeId = Requests.volumeId(request.getVolumeId());
    if (forwarding != null && volumes.catalog().volume(volumeId).isEmpty()) {
      forwarding.forward(request, Rpc.remaining(FORWARD_LIMIT));
    } else {
      volumes.modifier().modify(volumeId, mode);
    }
    return ControllerModifyVolumeResponse.getDefaultInstance();
  }
}
