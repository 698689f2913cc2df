package io.thinvol.driver.client;

import csi.v1.ControllerGrpc;
import csi.v1.IdentityGrpc;
import csi.v1.NodeGrpc;
import io.grpc.ManagedChannel;
import io.netty.channel.EventLoopGroup;
import io.thinvol.driver.server.UnixSockets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/** Blocking CSI stubs over one unix-socket channel (preflight, tests, benchmarks). */
public final class CsiClient implements AutoCloseable {

  private final EventLoopGroup eventLoops;
  private final ManagedChannel channel;
  private final IdentityGrpc.IdentityBlockingStub identity;
  private final ControllerGrpc.ControllerBlockingStub controller;
  private final NodeGrpc.NodeBlockingStub node;

  public CsiClient(Path socket) {
    this.eventLoops = UnixSockets.eventLoops(1);
    this.channel = UnixSockets.channel(socket, eventLoops);
    this.identity = IdentityGrpc.newBlockingStub(channel);
    this.controller = ControllerGrpc.newBlockingStub(channel);
    this.node = NodeGrpc.newBlockingStub(channel);
  }

  public IdentityGrpc.IdentityBlockingStub identity() {
    return identity;
  }

  public ControllerGrpc.ControllerBlockingStub controller() {
    return controller;
  }

  public NodeGrpc.NodeBlockingStub node() {
    return node;
  }

  public ManagedChannel channel() {
    return channel;
  }

  @Override
  public void close() {
    channel.shutdownNow();
    try {
      channel.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    eventLoops.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }
}
