package io.thinvol.driver.peer;

import csi.v1.ControllerModifyVolumeRequest;
import io.grpc.Status;
import io.thinvol.driver.core.CsiException;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends a ControllerModifyVolume for a volume this node does not hold to the driver of the node
 * that does: the PersistentVolume names the node, the DaemonSet's pod there is the peer. The peer
 * applies it locally and never forwards it again (its TLS port only applies), so a call travels one
 * hop at most.
 */
public final class ModifyForwarding {

  private static final Logger log = LoggerFactory.getLogger(ModifyForwarding.class);

  private final PeerLookup peers;

  public ModifyForwarding(PeerLookup peers) {
    this.peers = peers;
  }

  /** Applies {@code request} on the node holding its volume, which is not this one. */
  public void forward(ControllerModifyVolumeRequest request, Duration timeout) {
    String volumeId = request.getVolumeId();
    PeerEndpoint peer = peers.holderOf(volumeId);
    log.info("forwarding ControllerModifyVolume of {} to {}", volumeId, peer.describe());
    try {
      peers.client().modify(peer, request, timeout);
    } catch (CsiException e) {
      if (e.code() == Status.Code.NOT_FOUND) {
        peers.forget(volumeId);
      }
      throw e;
    }
  }
}
