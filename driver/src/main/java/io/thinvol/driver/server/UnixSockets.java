package io.thinvol.driver.server;

import io.grpc.ManagedChannel;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.NettyServerBuilder;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.epoll.EpollDomainSocketChannel;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.netty.channel.unix.DomainSocketAddress;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.concurrent.TimeUnit;

/** gRPC over unix domain sockets (Netty epoll), the transport CSI uses. */
public final class UnixSockets {

  private static final String SCHEME = "unix://";

  private UnixSockets() {}

  /** The socket path of a {@code unix:///path} or {@code unix:/path} endpoint. */
  public static Path path(String endpoint) {
    String rest;
    if (endpoint.startsWith(SCHEME)) {
      rest = endpoint.substring(SCHEME.length());
    } else if (endpoint.startsWith("unix:")) {
      rest = endpoint.substring("unix:".length());
    } else {
      throw new IllegalArgumentException(
          "endpoint " + endpoint + " is not a unix socket (expected unix:///path/to/csi.sock)");
    }
    if (!rest.startsWith("/")) {
      throw new IllegalArgumentException("endpoint " + endpoint + " must name an absolute path");
    }
    return Path.of(rest);
  }

  /** A server builder bound to {@code socket}, replacing a stale socket left by a crash. */
  public static NettyServerBuilder serverBuilder(Path socket, EventLoopGroup group)
      throws IOException {
    Files.createDirectories(socket.getParent());
    if (Files.exists(socket)) {
      BasicFileAttributes attributes = Files.readAttributes(socket, BasicFileAttributes.class);
      if (!attributes.isOther()) {
        // a setting to fix, said in one line (ThinvolCommand), not a failure with a stack trace
        throw new IllegalStateException(
            socket
                + " exists and is not a socket; refusing to replace it: move it away or give"
                + " --csi-endpoint another path");
      }
      Files.delete(socket);
    }
    return NettyServerBuilder.forAddress(new DomainSocketAddress(socket.toString()))
        .channelType(EpollServerDomainSocketChannel.class)
        .bossEventLoopGroup(group)
        .workerEventLoopGroup(group);
  }

  public static EventLoopGroup eventLoops(int threads) {
    return new EpollEventLoopGroup(threads);
  }

  /** Shuts a client channel down, then its event loops (when it has its own). */
  public static void close(ManagedChannel channel, EventLoopGroup eventLoops) {
    channel.shutdownNow();
    try {
      channel.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (eventLoops != null) {
      eventLoops.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
  }

  /** A plaintext channel to a local socket; the caller shuts down both. */
  public static ManagedChannel channel(Path socket, EventLoopGroup group) {
    return NettyChannelBuilder.forAddress(new DomainSocketAddress(socket.toString()))
        .eventLoopGroup(group)
        .channelType(EpollDomainSocketChannel.class)
        .usePlaintext()
        .build();
  }
}
