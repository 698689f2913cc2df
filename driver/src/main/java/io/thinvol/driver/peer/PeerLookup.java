package io.thinvol.driver.peer;

import io.thinvol.driver.config.DriverConfig;
import io.thinvol.driver.config.PeerConfig;
import io.thinvol.driver.core.CsiException;
import io.thinvol.driver.kube.ApiServer;
import java.nio.file.Path;
import java.util.function.Supplier;

/**
 * How this driver finds the other nodes' drivers and calls them, built once for both its uses (a
 * forwarded ControllerModifyVolume, a copy pulled from a peer): one memory of which node holds a
 * volume, so what one of them learned or found stale holds for the other too.
 *
 * @param nodeId this driver's node
 */
public record PeerLookup(
    String nodeId, VolumeNodes volumeNodes, DriverPods pods, PeerClient client) {

  /**
   * @param certificate the CSI-Addons certificate all driver pods present
   * @param addonsPort this driver's TLS port, assumed for a peer pod that names none
   * @param api built on its first use
   */
  public static PeerLookup of(
      DriverConfig config,
      PeerConfig peers,
      Path certificate,
      int addonsPort,
      Supplier<ApiServer> api) {
    return new PeerLookup(
        config.nodeId(),
        new VolumeNodes(api, config.driverName()),
        new DriverPods(api, peers.podNamespace(), peers.podSelector(), addonsPort),
        new PeerClient(certificate, peers.tokenFile()));
  }

  /**
   * The Ready driver pod of the node whose PersistentVolume holds {@code volumeId}: NOT_FOUND when
   * that is this node (which does not hold it: the volume was deleted), UNAVAILABLE when the pod
   * cannot be called now.
   */
  public PeerEndpoint holderOf(String volumeId) {
    String node = volumeNodes.nodeOf(volumeId);
    if (node.equals(nodeId)) {
      volumeNodes.forget(volumeId);
      throw CsiException.notFound(
          "volume %s is not on this node (%s), although its PersistentVolume places it here",
          volumeId, nodeId);
    }
    return pods.on(node);
  }

  /** Forgets where {@code volumeId} was: its node answered that it does not hold it. */
  public void forget(String volumeId) {
    volumeNodes.forget(volumeId);
  }

  /** The driver pods of every other node, Ready or not. */
  public DriverPods.Peers others() {
    return pods.all(nodeId);
  }
}
