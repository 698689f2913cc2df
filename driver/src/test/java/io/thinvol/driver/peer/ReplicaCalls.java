package io.thinvol.driver.peer;

import com.google.protobuf.Duration;
import com.google.protobuf.Timestamp;
import csiaddons.replication.ControllerGrpc;
import csiaddons.replication.DemoteVolumeRequest;
import csiaddons.replication.EnableVolumeReplicationRequest;
import csiaddons.replication.PromoteVolumeRequest;
import csiaddons.replication.ResyncVolumeRequest;
import io.grpc.ManagedChannel;
import io.thinvol.peer.v1.CopyInRequest;
import io.thinvol.peer.v1.CopyInResponse;
import io.thinvol.peer.v1.MoveCopyGrpc;
import io.thinvol.peer.v1.SyncedRequest;
import java.time.Instant;
import java.util.List;
import java.util.function.Function;

/**
 * A replication's calls on the nodes' TLS ports, as the operator makes them: the roles
 * (replication.Controller), the replica's copy (MoveCopy/CopyIn with the VolumeReplication's
 * entitlement) and the sync point's move (MoveCopy/Synced).
 */
final class ReplicaCalls {

  static final String NAME = "data";
  static final String UID = "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0";

  private final PeerDrivers nodes;
  private final String token;

  ReplicaCalls(PeerDrivers nodes) {
    this.nodes = nodes;
    this.token = nodes.operatorToken();
  }

  void enable(String node, String volumeId) throws Exception {
    roles(
        node,
        stub ->
            stub.enableVolumeReplication(
                EnableVolumeReplicationRequest.newBuilder()
                    .setVolumeId(volumeId)
                    .setReplicationId(UID)
                    .build()));
  }

  void promote(String node, String volumeId) throws Exception {
    roles(
        node,
        stub ->
            stub.promoteVolume(PromoteVolumeRequest.newBuilder().setVolumeId(volumeId).build()));
  }

  void demote(String node, String volumeId) throws Exception {
    roles(
        node,
        stub ->
            stub.demoteVolume(
                DemoteVolumeRequest.newBuilder().setVolumeId(volumeId).setForce(true).build()));
  }

  boolean resync(String node, String volumeId) throws Exception {
    return roles(
            node,
            stub ->
                stub.resyncVolume(ResyncVolumeRequest.newBuilder().setVolumeId(volumeId).build()))
        .getReady();
  }

  /** Sync {@code sync}'s snapshot of node-a's {@code volumeId}, as the operator names it. */
  String snapshot(String volumeId, int sync) throws Exception {
    return MoveCopyCalls.snapshot(
            nodes, token, "node-a", "thinvol-repl-" + UID + "-" + sync, volumeId)
        .getSnapshotId();
  }

  /** Replica {@code name} of {@code snapshot} on {@code node}, onto {@code base} (null: whole). */
  CopyInResponse copyIn(String node, String name, String snapshot, String base) throws Exception {
    CopyInRequest.Builder request =
        CopyInRequest.newBuilder()
            .setName(name)
            .setSnapshotId(snapshot)
            .setReplicationNamespace(CopySources.NAMESPACE)
            .setReplicationName(NAME)
            .setReplicationId(UID);
    if (base != null) {
      request.setBaseVolumeId(base);
    }
    return moveCopy(node, stub -> stub.copyIn(request.build()));
  }

  /** The sync point moved to {@code snapshot}, told to {@code node} for {@code volumeId}. */
  List<String> synced(String node, String volumeId, String snapshot, long bytes) throws Exception {
    Instant now = Instant.now();
    return moveCopy(
            node,
            stub ->
                stub.synced(
                    SyncedRequest.newBuilder()
                        .setVolumeId(volumeId)
                        .setSnapshotId(snapshot)
                        .setSyncTime(
                            Timestamp.newBuilder()
                                .setSeconds(now.getEpochSecond())
                                .setNanos(now.getNano()))
                        .setSyncDuration(Duration.newBuilder().setSeconds(1))
                        .setSyncBytes(bytes)
                        .build()))
        .getDroppedList();
  }

  private <T> T roles(String node, Function<ControllerGrpc.ControllerBlockingStub, T> call)
      throws Exception {
    ManagedChannel channel = TlsPort.channel(nodes, node, token);
    try {
      return call.apply(ControllerGrpc.newBlockingStub(channel));
    } finally {
      channel.shutdownNow();
    }
  }

  private <T> T moveCopy(String node, Function<MoveCopyGrpc.MoveCopyBlockingStub, T> call)
      throws Exception {
    ManagedChannel channel = TlsPort.channel(nodes, node, token);
    try {
      return call.apply(MoveCopyGrpc.newBlockingStub(channel));
    } finally {
      channel.shutdownNow();
    }
  }
}
