package io.thinvol.driver.peer;

import com.google.protobuf.ByteString;
import io.grpc.Server;
import io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import io.thinvol.driver.peer.copy.RangeDigest;
import io.thinvol.peer.v1.DataRange;
import io.thinvol.peer.v1.Heartbeat;
import io.thinvol.peer.v1.PeerCopyGrpc;
import io.thinvol.peer.v1.PullChunk;
import io.thinvol.peer.v1.PullHeader;
import io.thinvol.peer.v1.PullRequest;
import io.thinvol.peer.v1.PullTrailer;
import java.nio.file.Path;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A node's driver as a puller sees it, misbehaving as a test asks: it sends a header and some data,
 * then either stops and waits to be killed, or ends with a digest that does not match, or goes
 * silent (its connection kept open) after it promised heartbeats, or sends them for a while before
 * that wrong digest.
 */
final class StandInPeer implements AutoCloseable {

  enum Ending {
    KILLED_MID_STREAM,
    WRONG_DIGEST,
    SILENT_AFTER_PROMISING_HEARTBEATS,
    HEARTBEATS_THEN_WRONG_DIGEST
  }

  /** The heartbeat interval it promises, in the endings that promise one. */
  static final int HEARTBEAT_SECONDS = 1;

  static final long SIZE = 64L << 20;
  private static final int PIECE = 1 << 20;

  private final Server server;
  private final CountDownLatch sentData = new CountDownLatch(1);
  private final CountDownLatch released = new CountDownLatch(1);

  StandInPeer(int port, Path certificate, Path key, Ending ending) throws Exception {
    server =
        NettyServerBuilder.forPort(port)
            .sslContext(GrpcSslContexts.forServer(certificate.toFile(), key.toFile()).build())
            .addService(
                new PeerCopyGrpc.PeerCopyImplBase() {
                  @Override
                  public void pull(PullRequest request, StreamObserver<PullChunk> observer) {
                    serve(ending, observer);
                  }
                })
            .build()
            .start();
  }

  private void serve(Ending ending, StreamObserver<PullChunk> observer) {
    observer.onNext(
        PullChunk.newBuilder()
            .setHeader(
                PullHeader.newBuilder()
                    .setSizeBytes(SIZE)
                    .setAccessType("mount")
                    .setFsType("ext4")
                    .setFormatted(true)
                    .setNodeId("node-a")
                    .setDigestVersion(RangeDigest.version())
                    .setHeartbeatSeconds(
                        ending == Ending.SILENT_AFTER_PROMISING_HEARTBEATS
                                || ending == Ending.HEARTBEATS_THEN_WRONG_DIGEST
                            ? HEARTBEAT_SECONDS
                            : 0))
            .build());
    RangeDigest digest = new RangeDigest();
    Random random = new Random(7);
    for (long offset = 0; offset < 4L * PIECE; offset += 2L * PIECE) {
      byte[] bytes = new byte[PIECE];
      random.nextBytes(bytes);
      ByteString data = ByteString.copyFrom(bytes);
      digest.add(offset, data);
      observer.onNext(
          PullChunk.newBuilder()
              .setData(DataRange.newBuilder().setOffset(offset).setData(data))
              .build());
    }
    sentData.countDown();
    if (ending == Ending.KILLED_MID_STREAM || ending == Ending.SILENT_AFTER_PROMISING_HEARTBEATS) {
      awaitQuietly(released); // until the test kills the server
      return;
    }
    if (ending == Ending.HEARTBEATS_THEN_WRONG_DIGEST) {
      // Working for twice as long as the puller waits without them (six intervals)
      for (int beat = 0; beat < 12; beat++) {
        if (awaitQuietly(released, HEARTBEAT_SECONDS)) {
          return;
        }
        observer.onNext(
            PullChunk.newBuilder().setHeartbeat(Heartbeat.getDefaultInstance()).build());
      }
    }
    PullTrailer ours = digest.trailer();
    byte[] wrong = ours.getSha256().toByteArray();
    wrong[0] ^= 1;
    observer.onNext(
        PullChunk.newBuilder()
            .setTrailer(ours.toBuilder().setSha256(ByteString.copyFrom(wrong)))
            .build());
    observer.onCompleted();
  }

  /** Waits until the data was handed to the transport. */
  void awaitSentData() throws InterruptedException {
    if (!sentData.await(60, TimeUnit.SECONDS)) {
      throw new IllegalStateException("no pull reached the stand-in");
    }
  }

  /** The process dies: its connections are cut at once. */
  void kill() {
    server.shutdownNow();
    released.countDown();
  }

  private static void awaitQuietly(CountDownLatch latch) {
    awaitQuietly(latch, 120);
  }

  /** Whether {@code latch} opened within {@code seconds}. */
  private static boolean awaitQuietly(CountDownLatch latch, int seconds) {
    try {
      return latch.await(seconds, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return true;
    }
  }

  @Override
  public void close() throws InterruptedException {
    kill();
    server.awaitTermination(10, TimeUnit.SECONDS);
  }
}
