package io.thinvol.driver.peer.copy;

import io.grpc.Status;
import io.thinvol.driver.core.CsiException;
import io.thinvol.driver.core.RemoteSources;
import io.thinvol.driver.peer.DriverPods;
import io.thinvol.driver.peer.PeerEndpoint;
import io.thinvol.driver.peer.PeerLookup;
import io.thinvol.driver.store.ContentSource;
import io.thinvol.peer.v1.PullRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds the node that holds a volume or snapshot this node does not, and pulls it from that node's
 * driver over the CSI-Addons TLS port. A volume's node is its PersistentVolume's node affinity (as
 * ControllerModifyVolume forwarding finds it). A snapshot names no node anywhere (a
 * VolumeSnapshotContent has no topology, and its source volume may be gone), so every other node's
 * driver is asked in turn; one that does not hold it answers NOT_FOUND before reading anything.
 */
public final class PeerPuller implements RemoteSources {

  /** The claim a copy is for, as the external-provisioner names it in CreateVolume. */
  public static final String CLAIM_NAMESPACE = "csi.storage.k8s.io/pvc/namespace";

  public static final String CLAIM_NAME = "csi.storage.k8s.io/pvc/name";
  private static final Logger log = LoggerFactory.getLogger(PeerPuller.class);

  private final PeerLookup peers;

  public PeerPuller(PeerLookup peers) {
    this.peers = peers;
  }

  @Override
  public RemoteCopy open(
      ContentSource source,
      String baseSnapshotId,
      Map<String, String> parameters,
      Duration budget) {
    String what = describe(source);
    PullRequest.Builder request = entitled(PullRequest.newBuilder(), parameters, what);
    List<PeerEndpoint> candidates = new ArrayList<>();
    Set<String> unreachable = new TreeSet<>();
    if (source.kind() == ContentSource.Kind.VOLUME) {
      request.setVolumeId(source.id());
      candidates.add(peers.holderOf(source.id()));
    } else {
      request.setSnapshotId(source.id());
      if (baseSnapshotId != null) {
        request.setBaseSnapshotId(baseSnapshotId);
      }
      DriverPods.Peers others = peers.others();
      candidates.addAll(others.ready());
      others
          .notReady()
          .forEach(node -> unreachable.add("node " + node + ": its driver pod is not ready"));
    }
    for (PeerEndpoint peer : candidates) {
      // Before the header, which may be long in coming (an attached volume is copied first there)
      log.info("asking {} for {}", peer.describe(), what);
      try {
        PulledCopy copy = PulledCopy.start(peers.client(), peer, request.build(), budget);
        log.info(
            "copying {} from {}{}",
            what,
            peer.describe(),
            baseSnapshotId == null ? "" : ", the changes since " + baseSnapshotId + " only");
        return copy;
      } catch (CsiException e) {
        if (e.code() == Status.Code.NOT_FOUND) {
          if (source.kind() == ContentSource.Kind.VOLUME) {
            peers.forget(source.id());
          }
          continue;
        }
        if (e.code() != Status.Code.UNAVAILABLE || candidates.size() == 1) {
          throw e;
        }
        unreachable.add(e.getMessage());
      }
    }
    if (!unreachable.isEmpty()) {
      throw new CsiException(
          Status.Code.UNAVAILABLE,
          what
              + " is not on node "
              + peers.nodeId()
              + " and these nodes, which may hold it, cannot be"
              + " asked now: "
              + String.join("; ", unreachable));
    }
    throw CsiException.notFound(
        "%s does not exist on any node (asked %s and %s)",
        what, peers.nodeId(), candidates.stream().map(PeerEndpoint::node).sorted().toList());
  }

  /** The request with the claim, or the VolumeReplication, that entitles this node to the copy. */
  private PullRequest.Builder entitled(
      PullRequest.Builder request, Map<String, String> parameters, String what) {
    String replicationName = parameters.getOrDefault(REPLICATION_NAME, "");
    if (!replicationName.isEmpty()) {
      return request
          .setReplicationNamespace(parameters.getOrDefault(REPLICATION_NAMESPACE, ""))
          .setReplicationName(replicationName);
    }
    String claimNamespace = parameters.getOrDefault(CLAIM_NAMESPACE, "");
    String claimName = parameters.getOrDefault(CLAIM_NAME, "");
    if (claimNamespace.isEmpty() || claimName.isEmpty()) {
      throw CsiException.notFound(
          "%s does not exist on node %s; a copy from another node is sent only for a claim that"
              + " names it, and this request names no claim (%s, %s: the external-provisioner's"
              + " --extra-create-metadata)",
          what, peers.nodeId(), CLAIM_NAMESPACE, CLAIM_NAME);
    }
    return request.setClaimNamespace(claimNamespace).setClaimName(claimName);
  }

  private static String describe(ContentSource source) {
    return (source.kind() == ContentSource.Kind.VOLUME ? "volume " : "snapshot ") + source.id();
  }
}
