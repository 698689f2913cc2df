package io.thinvol.driver.server;

import io.grpc.BindableService;
import io.grpc.Server;
import io.grpc.netty.NettyServerBuilder;
import io.netty.channel.EventLoopGroup;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One gRPC server on a unix socket: a bounded executor (host commands block, so calls must not run
 * on Netty's event loop), and a graceful stop that lets calls in flight finish first.
 */
public final class GrpcServer implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(GrpcServer.class);
  private static final int HANDLER_THREADS = 16;
  private static final int QUEUED_CALLS = 1024;
  private static final long GRACE_SECONDS = 30;

  private final Path socket;
  private final EventLoopGroup eventLoops;
  private final ThreadPoolExecutor executor;
  private final Server server;

  private GrpcServer(
      Path socket, EventLoopGroup eventLoops, ThreadPoolExecutor executor, Server server) {
    this.socket = socket;
    this.eventLoops = eventLoops;
    this.executor = executor;
    this.server = server;
  }

  public static GrpcServer start(Path socket, List<BindableService> services) throws IOException {
    EventLoopGroup eventLoops = UnixSockets.eventLoops(1);
    ThreadPoolExecutor executor = handlerPool();
    NettyServerBuilder builder = UnixSockets.serverBuilder(socket, eventLoops).executor(executor);
    services.forEach(builder::addService);
    Server server = builder.build().start();
    log.info("serving {} services on unix://{}", services.size(), socket);
    return new GrpcServer(socket, eventLoops, executor, server);
  }

  private static ThreadPoolExecutor handlerPool() {
    AtomicInteger count = new AtomicInteger();
    ThreadPoolExecutor executor =
        new ThreadPoolExecutor(
            HANDLER_THREADS,
            HANDLER_THREADS,
            60,
            TimeUnit.SECONDS,
            new ArrayBlockingQueue<>(QUEUED_CALLS),
            runnable -> {
              Thread thread = new Thread(runnable, "csi-handler-" + count.incrementAndGet());
              thread.setDaemon(true);
              return thread;
            });
    executor.allowCoreThreadTimeOut(true); // an idle driver keeps no handler threads
    return executor;
  }

  public Path socket() {
    return socket;
  }

  public void awaitTermination() throws InterruptedException {
    server.awaitTermination();
  }

  @Override
  public void close() {
    server.shutdown();
    try {
      if (!server.awaitTermination(GRACE_SECONDS, TimeUnit.SECONDS)) {
        log.warn("calls still running after {}s; cancelling them", GRACE_SECONDS);
        server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      server.shutdownNow();
      Thread.currentThread().interrupt();
    }
    executor.shutdown();
    eventLoops.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    try {
      Files.deleteIfExists(socket);
    } catch (IOException e) {
      log.warn("cannot remove socket {}: {}", socket, e.getMessage());
    }
  }
}
