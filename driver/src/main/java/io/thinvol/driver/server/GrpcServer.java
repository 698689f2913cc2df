package io.thinvol.driver.server;

import io.grpc.BindableService;
import io.grpc.HandlerRegistry;
import io.grpc.Server;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.NettyServerBuilder;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.util.internal.PlatformDependent;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One gRPC server, on a unix socket or a TLS port: its own bounded {@link HandlerPool} (a flood on
 * one endpoint never takes the threads of another), Netty's event loop given by the caller (one
 * thread can serve every endpoint of a process: it only moves bytes) or its own, and a graceful
 * stop that lets calls in flight finish first.
 */
public final class GrpcServer implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(GrpcServer.class);
  private static final int HANDLER_THREADS = 16;
  private static final int QUEUED_CALLS = 1024;
  private static final long GRACE_SECONDS = 30;

  /**
   * What a TLS connection may hold unsent before Netty calls it unwritable: with its default of 64
   * KiB, a copy to another node (pieces of 256 KiB then) made HTTP/2's flow control stop and start
   * again for every few frames, which took most of the sending event loop's time.
   */
  private static final WriteBufferWaterMark COPY_WRITE_BUFFER =
      new WriteBufferWaterMark(512 << 10, 1 << 20);

  private final String where;
  private final Path socket;
  private final EventLoopGroup ownEventLoops;
  private final ThreadPoolExecutor executor;
  private final Server server;
  private final AutoCloseable resources;

  private GrpcServer(
      String where,
      Path socket,
      EventLoopGroup ownEventLoops,
      ThreadPoolExecutor executor,
      Server server,
      AutoCloseable resources) {
    this.where = where;
    this.socket = socket;
    this.ownEventLoops = ownEventLoops;
    this.executor = executor;
    this.server = server;
    this.resources = resources;
  }

  /**
   * Serves on a unix socket, replacing a stale socket file left by a crash. Calls pass the
   * interceptors, the last one first.
   */
  public static GrpcServer onSocket(
      Path socket,
      List<BindableService> services,
      List<ServerInterceptor> interceptors,
      EventLoopGroup eventLoops)
      throws IOException {
    return onSocket(socket, services, interceptors, null, eventLoops);
  }

  /**
   * As above; methods of no service go to {@code fallback} (null: UNIMPLEMENTED). A null {@code
   * eventLoops}: the server's own, closed with it.
   */
  static GrpcServer onSocket(
      Path socket,
      List<BindableService> services,
      List<ServerInterceptor> interceptors,
      HandlerRegistry fallback,
      EventLoopGroup eventLoops)
      throws IOException {
    EventLoopGroup own = eventLoops == null ? UnixSockets.eventLoops(1) : null;
    NettyServerBuilder builder = UnixSockets.serverBuilder(socket, own != null ? own : eventLoops);
    services.forEach(s -> builder.addService(ServerInterceptors.intercept(s, interceptors)));
    if (fallback != null) {
      builder.fallbackHandlerRegistry(fallback);
    }
    return start(builder, own, "unix://" + socket, socket, () -> {});
  }

  /**
   * Serves on a TCP port with TLS only. Calls pass the interceptors, the last one first. A
   * certificate and key replaced on disk (a Secret volume after the Secret changed) serve new
   * connections without a restart.
   */
  public static GrpcServer onTlsPort(
      int port,
      Path certificate,
      Path key,
      List<BindableService> services,
      List<ServerInterceptor> interceptors,
      EventLoopGroup eventLoops)
      throws IOException {
    return onTlsPort(
        port, ReloadingIdentity.watch(certificate, key), services, interceptors, eventLoops);
  }

  static GrpcServer onTlsPort(
      int port,
      ReloadingIdentity identity,
      List<BindableService> services,
      List<ServerInterceptor> interceptors,
      EventLoopGroup eventLoops)
      throws IOException {
    EventLoopGroup own = eventLoops == null ? UnixSockets.eventLoops(1) : null;
    EventLoopGroup loops = own != null ? own : eventLoops;
    NettyServerBuilder builder =
        NettyServerBuilder.forPort(port)
            .channelType(EpollServerSocketChannel.class)
            .bossEventLoopGroup(loops)
            .workerEventLoopGroup(loops)
            .withChildOption(ChannelOption.WRITE_BUFFER_WATER_MARK, COPY_WRITE_BUFFER)
            .sslContext(
                GrpcSslContexts.configure(SslContextBuilder.forServer(identity.keyManager()))
                    .build());
    services.forEach(s -> builder.addService(ServerInterceptors.intercept(s, interceptors)));
    logTransport();
    return start(builder, own, "tls://:" + port, null, identity);
  }

  /**
   * BoringSSL (netty-tcnative) is gRPC's choice where its native library loads; the JDK's engine
   * otherwise, whose AES-GCM runs at ~30 MiB per CPU-second under the image's C1-only JIT: a peer's
   * copy would crawl, so that is worth a warning. So are direct buffers the JDK zero-fills and
   * frees through its cleaner, where Netty cannot allocate them itself (cli/NettyBuffers).
   */
  private static void logTransport() {
    if (OpenSsl.isAvailable()) {
      log.info("TLS by {}", OpenSsl.versionString());
    } else {
      log.warn(
          "TLS by the JDK: BoringSSL cannot be loaded ({}); copies between nodes will be slow",
          String.valueOf(OpenSsl.unavailabilityCause()));
    }
    if (!PlatformDependent.useDirectBufferNoCleaner()) {
      log.warn(
          "Netty's direct buffers are zero-filled and freed by the JDK's cleaner: java.nio is not"
              + " open to it (the driver jar's manifest opens it for java -jar; on a class path add"
              + " --add-opens=java.base/java.nio=ALL-UNNAMED); copies between nodes take more CPU");
    }
  }

  private static GrpcServer start(
      NettyServerBuilder builder,
      EventLoopGroup ownEventLoops,
      String where,
      Path socket,
      AutoCloseable resources)
      throws IOException {
    ThreadPoolExecutor executor = HandlerPool.create("grpc-handler", HANDLER_THREADS, QUEUED_CALLS);
    Server server;
    try {
      server = builder.executor(executor).build().start();
    } catch (IOException | RuntimeException e) {
      executor.shutdown();
      closeQuietly(resources);
      if (ownEventLoops != null) {
        ownEventLoops.shutdownGracefully(0, 1, TimeUnit.SECONDS);
      }
      throw e;
    }
    log.info("serving on {}", where);
    return new GrpcServer(where, socket, ownEventLoops, executor, server, resources);
  }

  private static void closeQuietly(AutoCloseable resources) {
    try {
      resources.close();
    } catch (Exception e) {
      log.warn("while stopping: {}", e.toString());
    }
  }

  public boolean isServing() {
    return !server.isShutdown();
  }

  public void awaitTermination() throws InterruptedException {
    server.awaitTermination();
  }

  @Override
  public void close() {
    server.shutdown();
    try {
      if (!server.awaitTermination(GRACE_SECONDS, TimeUnit.SECONDS)) {
        log.warn("calls on {} still running after {}s; cancelling them", where, GRACE_SECONDS);
        server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      server.shutdownNow();
      Thread.currentThread().interrupt();
    }
    executor.shutdown();
    closeQuietly(resources);
    if (ownEventLoops != null) {
      ownEventLoops.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
    if (socket != null) {
      try {
        Files.deleteIfExists(socket);
      } catch (IOException e) {
        log.warn("cannot remove socket {}: {}", socket, e.getMessage());
      }
    }
  }
}
