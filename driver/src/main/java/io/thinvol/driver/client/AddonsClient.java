package io.thinvol.driver.client;

import csiaddons.identity.IdentityGrpc;
import csiaddons.reclaimspace.ControllerReclaimSpaceRequest;
import csiaddons.reclaimspace.ControllerReclaimSpaceResponse;
import csiaddons.reclaimspace.NodeReclaimSpaceRequest;
import csiaddons.reclaimspace.NodeReclaimSpaceResponse;
import csiaddons.reclaimspace.ReclaimSpaceControllerGrpc;
import csiaddons.reclaimspace.ReclaimSpaceNodeGrpc;
import csiaddons.replication.ControllerGrpc;
import io.grpc.ManagedChannel;
import io.netty.channel.EventLoopGroup;
import io.thinvol.driver.server.UnixSockets;
import java.nio.file.Path;

/** Blocking CSI-Addons stubs (identity, ReclaimSpace, replication) over one channel. */
public final class AddonsClient implements AutoCloseable {

  private final EventLoopGroup eventLoops;
  private final ManagedChannel channel;
  private final IdentityGrpc.IdentityBlockingStub identity;
  private final ReclaimSpaceNodeGrpc.ReclaimSpaceNodeBlockingStub node;
  private final ReclaimSpaceControllerGrpc.ReclaimSpaceControllerBlockingStub controller;
  private final ControllerGrpc.ControllerBlockingStub replication;

  /** A client of the addons unix socket. */
  public AddonsClient(Path socket) {
    this(UnixSockets.eventLoops(1), socket);
  }

  private AddonsClient(EventLoopGroup eventLoops, Path socket) {
    this(eventLoops, UnixSockets.channel(socket, eventLoops));
  }

  /** A client of an existing channel (for example the TLS port); closing closes the channel. */
  public AddonsClient(ManagedChannel channel) {
    this(null, channel);
  }

  private AddonsClient(EventLoopGroup eventLoops, ManagedChannel channel) {
    this.eventLoops = eventLoops;
    this.channel = channel;
    this.identity = IdentityGrpc.newBlockingStub(channel);
    this.node = ReclaimSpaceNodeGrpc.newBlockingStub(channel);
    this.controller = ReclaimSpaceControllerGrpc.newBlockingStub(channel);
    this.replication = ControllerGrpc.newBlockingStub(channel);
  }

  /** The replication.Controller service: the roles of replicated volumes. */
  public ControllerGrpc.ControllerBlockingStub replication() {
    return replication;
  }

  public IdentityGrpc.IdentityBlockingStub identity() {
    return identity;
  }

  public ReclaimSpaceNodeGrpc.ReclaimSpaceNodeBlockingStub node() {
    return node;
  }

  public ReclaimSpaceControllerGrpc.ReclaimSpaceControllerBlockingStub controller() {
    return controller;
  }

  /** NodeReclaimSpace as the Kubernetes sidecar sends it: staging path, no volume path. */
  public NodeReclaimSpaceResponse reclaimOnNode(String volumeId, Path stagingPath) {
    NodeReclaimSpaceRequest.Builder request =
        NodeReclaimSpaceRequest.newBuilder().setVolumeId(volumeId);
    if (stagingPath != null) {
      request.setStagingTargetPath(stagingPath.toString());
    }
    return node.nodeReclaimSpace(request.build());
  }

  public ControllerReclaimSpaceResponse reclaimOffline(String volumeId) {
    return controller.controllerReclaimSpace(
        ControllerReclaimSpaceRequest.newBuilder().setVolumeId(volumeId).build());
  }

  @Override
  public void close() {
    UnixSockets.close(channel, eventLoops);
  }
}
