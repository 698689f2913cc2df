package io.thinvol.driver.peer;

import csi.v1.ControllerModifyVolumeRequest;
import io.grpc.Status;
import io.thinvol.driver.config.DriverConfig;
import io.thinvol.driver.config.PeerConfig;
import io.thinvol.driver.core.CsiException;
import io.thinvol.driver.kube.ApiServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.Supplier;
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

  private final String nodeId;
  private final VolumeNodes volumeNodes;
  private final DriverPods pods;
  private final PeerClient client;

  ModifyForwarding(String nodeId, VolumeNodes volumeNodes, DriverPods pods, PeerClient client) {
    this.nodeId = nodeId;
    this.volumeNodes = volumeNodes;
    this.pods = pods;
    this.client = client;
  }

  /**
   * @param certificate the CSI-Addons certificate all driver pods present
   * @param addonsPort this driver's TLS port, assumed for a peer pod that names none
   */
  public static ModifyForwarding of(
      DriverConfig config,
      PeerConfig peers,
      Path certificate,
      int addonsPort,
      Supplier<ApiServer> api) {
    Supplier<ApiServer> once = new Lazy<>(api);
    return new ModifyForwarding(
        config.nodeId(),
        new VolumeNodes(once, config.driverName()),
        new DriverPods(once, peers.podNamespace(), peers.podSelector(), addonsPort),
        new PeerClient(certificate, peers.tokenFile()));
  }

  /** Applies {@code request} on the node holding its volume, which is not this one. */
  public void forward(ControllerModifyVolumeRequest request, Duration timeout) {
    String volumeId = request.getVolumeId();
    String node = volumeNodes.nodeOf(volumeId);
    if (node.equals(nodeId)) {
      volumeNodes.forget(volumeId);
      throw CsiException.notFound(
          "volume %s is not on this node (%s), although its PersistentVolume places it here",
          volumeId, nodeId);
    }
    PeerEndpoint peer = pods.on(node);
    log.info("forwarding ControllerModifyVolume of {} to {}", volumeId, peer.describe());
    try {
      client.modify(peer, request, timeout);
    } catch (CsiException e) {
      if (e.code() == Status.Code.NOT_FOUND) {
        volumeNodes.forget(volumeId);
      }
      throw e;
    }
  }
}
