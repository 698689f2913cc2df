package io.thinvol.driver.bench;

import com.google.protobuf.BoolValue;
import csi.v1.IdentityGrpc;
import csi.v1.ProbeRequest;
import csi.v1.ProbeResponse;
import io.grpc.stub.StreamObserver;
import io.netty.channel.EventLoopGroup;
import io.thinvol.driver.client.CsiClient;
import io.thinvol.driver.server.GrpcServer;
import io.thinvol.driver.server.UnixSockets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * For bench/node-start-bench.sh: waits for a driver that is starting to answer {@code Probe} on its
 * CSI socket and prints when it first did, in seconds since the epoch (with nanoseconds), as the
 * kubelet's registrar and livenessprobe would see it. Started before the driver, it asks every 5 ms
 * once the socket exists, each time on a new connection (a channel's reconnect backoff would add up
 * to a second). Prints {@code warm} once its own classes are loaded: the driver is to be started
 * only then.
 *
 * <p>Usage: {@code FirstProbe SOCKET TIMEOUT_SECONDS}
 */
public final class FirstProbe {

  private FirstProbe() {}

  public static void main(String[] args) throws Exception {
    Path socket = Path.of(args[0]);
    long deadline = System.nanoTime() + Duration.ofSeconds(Long.parseLong(args[1])).toNanos();
    warmUp();
    System.out.println("warm");
    System.out.flush();
    while (System.nanoTime() < deadline) {
      if (Files.exists(socket)) {
        try (CsiClient csi = new CsiClient(socket)) {
          boolean ready =
              csi.identity()
                  .withDeadlineAfter(500, TimeUnit.MILLISECONDS)
                  .probe(ProbeRequest.getDefaultInstance())
                  .getReady()
                  .getValue();
          if (ready) {
            Instant now = Instant.now();
            System.out.printf("%d.%09d%n", now.getEpochSecond(), now.getNano());
            return;
          }
        } catch (RuntimeException notYet) {
          // not serving yet
        }
      }
      Thread.sleep(5);
    }
    System.err.println("no Probe answered on " + socket);
    System.exit(1);
  }

  /**
   * Loads the client's classes before the driver starts, not while it is timed: a whole Probe, on a
   * new connection, against a server of this process. The sidecars that wait for a driver are Go
   * programs that are running already; a client stub alone left the first call's classes (the
   * channel's HTTP/2 path, the call, the messages) to be loaded while the driver was timed, a few
   * hundred ms of this JVM's time that the figure counted as the driver's.
   */
  private static void warmUp() throws Exception {
    Path dir = Files.createTempDirectory("thinvol-first-probe-");
    Path socket = dir.resolve("warm.sock");
    EventLoopGroup loops = UnixSockets.eventLoops(1);
    IdentityGrpc.IdentityImplBase ready =
        new IdentityGrpc.IdentityImplBase() {
          @Override
          public void probe(ProbeRequest request, StreamObserver<ProbeResponse> observer) {
            observer.onNext(ProbeResponse.newBuilder().setReady(BoolValue.of(true)).build());
            observer.onCompleted();
          }
        };
    try (GrpcServer server = GrpcServer.onSocket(socket, List.of(ready), List.of(), loops);
        CsiClient csi = new CsiClient(socket)) {
      csi.identity()
          .withDeadlineAfter(10, TimeUnit.SECONDS)
          .probe(ProbeRequest.getDefaultInstance())
          .getReady()
          .getValue();
    } finally {
      loops.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
      Files.deleteIfExists(socket);
      Files.delete(dir);
    }
  }
}
