package io.thinvol.driver.peer.copy;

import io.grpc.Status;
import io.thinvol.driver.core.CsiException;
import io.thinvol.driver.kube.JsonTree;
import io.thinvol.driver.peer.DriverPods;
import io.thinvol.driver.store.Catalog;
import io.thinvol.driver.store.ReplicationRecord;
import io.thinvol.driver.store.SnapshotRecord;
import io.thinvol.driver.store.VolumeRecord;
import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * Whether a peer may pull a sync snapshot for a replica: the snapshot is of a volume this node
 * holds as the primary of a replication (its {@code meta.json} says so, checked before anything is
 * asked of the API server), the VolumeReplication named is that replication (its uid), its claim is
 * bound to that volume, and the caller is the driver pod of the node its status names as the
 * standby. Only the operator writes that status; the drivers' ServiceAccount may only read it.
 */
public final class ReplicaEntitlement {

  private static final String GROUP = "thinvol.io";

  private final Catalog catalog;
  private final ClaimSources claims;
  private final DriverPods pods;
  private final String nodeId;

  /**
   * @param pods the driver pods, by node; null when this driver looks up no peers, so that no
   *     replica is sent
   */
  public ReplicaEntitlement(Catalog catalog, ClaimSources claims, DriverPods pods, String nodeId) {
    this.catalog = catalog;
    this.claims = claims;
    this.pods = pods;
    this.nodeId = nodeId;
  }

  /** PERMISSION_DENIED unless {@code caller} may pull {@code snapshotId} for the replication. */
  public void require(String namespace, String name, String snapshotId, InetAddress caller) {
    String replication = namespace + "/" + name;
    VolumeRecord volume = primaryOf(snapshotId, replication);
    if (pods == null || caller == null) {
      throw denied(
          "node %s sends replicas only to the standby's driver pod over its TLS port", nodeId);
    }
    JsonTree found =
        claims.get(
            "/apis/"
                + GROUP
                + "/v1alpha1/namespaces/"
                + ClaimSources.encode(namespace)
                + "/volumereplications/"
                + ClaimSources.encode(name),
            "VolumeReplication " + replication);
    String uid = found.path("metadata").path("uid").asText("");
    if (!uid.equals(volume.replication().id())) {
      throw denied(
          "volume %s is the primary of replication %s, not of VolumeReplication %s (uid %s)",
          volume.id(), volume.replication().id(), replication, uid);
    }
    JsonTree source = found.path("spec").path("dataSource");
    String claim = source.path("name").asText("");
    if (!"PersistentVolumeClaim".equals(source.path("kind").asText(""))
        || !volume.id().equals(claims.volumeHandle(namespace, claim))) {
      throw denied(
          "the claim of VolumeReplication %s (%s) is not bound to volume %s",
          replication, claim, volume.id());
    }
    String standby = found.path("status").path("standbyNode").asText("");
    if (standby.isEmpty() || standby.equals(nodeId)) {
      throw denied("VolumeReplication %s names no standby node other than %s", replication, nodeId);
    }
    String standbyIp = pods.on(standby).host();
    if (!same(standbyIp, caller)) {
      throw denied(
          "the caller (%s) is not the driver pod of node %s (%s), the standby of VolumeReplication"
              + " %s",
          caller.getHostAddress(), standby, standbyIp, replication);
    }
  }

  /** The snapshot's volume, the primary of a replication on this node. */
  private VolumeRecord primaryOf(String snapshotId, String replication) {
    SnapshotRecord snapshot =
        catalog
            .snapshot(snapshotId)
            .orElseThrow(
                () ->
                    CsiException.notFound(
                        "snapshot %s does not exist on node %s", snapshotId, nodeId));
    VolumeRecord volume =
        catalog
            .volume(snapshot.sourceVolumeId())
            .orElseThrow(
                () ->
                    denied(
                        "the volume of snapshot %s is gone from node %s: no replica is sent of it",
                        snapshotId, nodeId));
    ReplicationRecord role = volume.replication();
    if (role == null || role.secondary()) {
      throw denied(
          "volume %s (of snapshot %s) is not the primary of a replication on node %s, so no"
              + " replica of it is sent for VolumeReplication %s",
          volume.id(), snapshotId, nodeId, replication);
    }
    return volume;
  }

  private static boolean same(String ip, InetAddress caller) {
    try {
      return InetAddress.getByName(ip).equals(caller);
    } catch (UnknownHostException e) {
      return false;
    }
  }

  private static CsiException denied(String format, Object... args) {
    return new CsiException(Status.Code.PERMISSION_DENIED, String.format(format, args));
  }
}
