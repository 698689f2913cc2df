package io.thinvol.driver.peer;

import io.grpc.ManagedChannel;
import io.thinvol.peer.v1.CopyInRequest;
import io.thinvol.peer.v1.CopyInResponse;
import io.thinvol.peer.v1.DropSnapshotRequest;
import io.thinvol.peer.v1.DropVolumeRequest;
import io.thinvol.peer.v1.MoveCopyGrpc;
import io.thinvol.peer.v1.SnapshotRequest;
import io.thinvol.peer.v1.SnapshotResponse;
import io.thinvol.peer.v1.SpaceRequest;
import io.thinvol.peer.v1.SpaceResponse;

/** MoveCopy on a node's TLS port, as the operator's VolumeMove would call it. */
final class MoveCopyCalls {

  private MoveCopyCalls() {}

  /** Volume {@code name} on node-b: snapshot {@code snapshot} onto a copy of {@code base}. */
  static CopyInResponse copyIn(
      PeerDrivers nodes, String token, String name, String snapshot, String base, String claim)
      throws Exception {
    ManagedChannel channel = TlsPort.channel(nodes, "node-b", token);
    try {
      return MoveCopyGrpc.newBlockingStub(channel)
          .copyIn(
              CopyInRequest.newBuilder()
                  .setName(name)
                  .setSnapshotId(snapshot)
                  .setBaseVolumeId(base)
                  .setClaimNamespace(CopySources.NAMESPACE)
                  .setClaimName(claim)
                  .build());
    } finally {
      channel.shutdownNow();
    }
  }

  /** A cut-over's snapshot {@code name} of {@code volumeId}, asked of {@code node}. */
  static SnapshotResponse snapshot(
      PeerDrivers nodes, String token, String node, String name, String volumeId) throws Exception {
    ManagedChannel channel = TlsPort.channel(nodes, node, token);
    try {
      return MoveCopyGrpc.newBlockingStub(channel)
          .snapshot(SnapshotRequest.newBuilder().setName(name).setSourceVolumeId(volumeId).build());
    } finally {
      channel.shutdownNow();
    }
  }

  /** Whether {@code node} held a cut-over's snapshot {@code name} of {@code volumeId}, dropped. */
  static boolean drop(PeerDrivers nodes, String token, String node, String name, String volumeId)
      throws Exception {
    ManagedChannel channel = TlsPort.channel(nodes, node, token);
    try {
      return MoveCopyGrpc.newBlockingStub(channel)
          .dropSnapshot(
              DropSnapshotRequest.newBuilder().setName(name).setSourceVolumeId(volumeId).build())
          .getDropped();
    } finally {
      channel.shutdownNow();
    }
  }

  /** Whether node-b held the copy {@code name} of {@code snapshot}, dropped. */
  static boolean dropVolume(PeerDrivers nodes, String token, String name, String snapshot)
      throws Exception {
    ManagedChannel channel = TlsPort.channel(nodes, "node-b", token);
    try {
      return MoveCopyGrpc.newBlockingStub(channel)
          .dropVolume(DropVolumeRequest.newBuilder().setName(name).setSnapshotId(snapshot).build())
          .getDropped();
    } finally {
      channel.shutdownNow();
    }
  }

  /** What {@code node} holds of volume {@code volumeId}. */
  static SpaceResponse space(PeerDrivers nodes, String token, String node, String volumeId)
      throws Exception {
    ManagedChannel channel = TlsPort.channel(nodes, node, token);
    try {
      return MoveCopyGrpc.newBlockingStub(channel)
          .space(SpaceRequest.newBuilder().setVolumeId(volumeId).build());
    } finally {
      channel.shutdownNow();
    }
  }
}
