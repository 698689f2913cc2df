package io.thinvol.driver.peer;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.google.protobuf.ByteString;
import io.grpc.ManagedChannel;
import io.grpc.stub.StreamObserver;
import io.netty.handler.codec.http2.Http2CodecUtil;
import io.thinvol.driver.SelfSignedPair;
import io.thinvol.driver.server.GrpcServer;
import io.thinvol.peer.v1.DataRange;
import io.thinvol.peer.v1.PeerCopyGrpc;
import io.thinvol.peer.v1.PullChunk;
import io.thinvol.peer.v1.PullRequest;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * A peer's channel, as a copy uses it, gets the peer's data in frames of up to 1 MiB, larger than
 * HTTP/2's first 16 KiB: the frames gRPC's client handler reads, as its HTTP/2 frame log (Netty's,
 * at DEBUG) names them, from the driver's own TLS port serving a stream of 1 MiB pieces.
 */
class LargeDataFramesTest {

  private static final Pattern DATA_READ = Pattern.compile("INBOUND DATA: .* length=(\\d+)");
  private static final int PIECES = 8;

  @TempDir Path dir;
  private final Logger frameLog =
      (Logger) LoggerFactory.getLogger("io.grpc.netty.NettyClientHandler");
  private final ListAppender<ILoggingEvent> frames = new ListAppender<>();
  private Level levelBefore;
  private GrpcServer server;

  @BeforeEach
  void logFrames() {
    levelBefore = frameLog.getLevel();
    frameLog.setLevel(Level.DEBUG);
    frames.start();
    frameLog.addAppender(frames);
  }

  @AfterEach
  void stop() {
    frameLog.detachAppender(frames);
    frameLog.setLevel(levelBefore);
    if (server != null) {
      server.close();
    }
  }

  @Test
  void aPeerSendsTheCopyInFramesOfUpToOneMebibyte() throws Exception {
    Path certificate = dir.resolve("tls.crt");
    Path key = dir.resolve("tls.key");
    SelfSignedPair.write(certificate, key, "peer", "subjectAltName=DNS:thinvol-peer");
    Path token = Files.writeString(dir.resolve("token"), "a-token");
    byte[] piece = new byte[1 << 20];
    new Random(7).nextBytes(piece);
    int port;
    try (ServerSocket free = new ServerSocket(0)) {
      port = free.getLocalPort();
    }
    server = GrpcServer.onTlsPort(port, certificate, key, List.of(sending(piece)), List.of(), null);

    ManagedChannel channel =
        new PeerClient(certificate, token)
            .channel(new PeerEndpoint("node-a", "pod-a", "127.0.0.1", port));
    List<ByteString> received = new ArrayList<>();
    try {
      Iterator<PullChunk> chunks =
          PeerCopyGrpc.newBlockingStub(channel).pull(PullRequest.newBuilder().build());
      chunks.forEachRemaining(chunk -> received.add(chunk.getData().getData()));
    } finally {
      channel.shutdownNow();
    }

    assertThat(received)
        .hasSize(PIECES)
        .allMatch(bytes -> bytes.equals(ByteString.copyFrom(piece)));
    List<Integer> lengths = new ArrayList<>();
    for (ILoggingEvent event : framesLogged()) {
      Matcher data = DATA_READ.matcher(event.getFormattedMessage());
      if (data.find()) {
        lengths.add(Integer.parseInt(data.group(1)));
      }
    }
    assertThat(lengths.stream().mapToLong(Integer::longValue).sum())
        .as("the DATA frames' bytes: the pieces with gRPC's and protobuf's framing")
        .isGreaterThan((long) PIECES << 20);
    // A sender fills a frame with what it holds when it flushes, so how large the largest frame
    // is depends on timing (about 512 KiB each on a loaded host): any frame past HTTP/2's first
    // limit shows that the ask was honoured.
    assertThat(lengths)
        .as("the DATA frames' lengths")
        .allMatch(length -> length <= LargeDataFrames.MAX_FRAME_SIZE)
        .anyMatch(length -> length > Http2CodecUtil.DEFAULT_MAX_FRAME_SIZE);
  }

  /**
   * The frames logged so far. The channel's event loop may still log its closing frames: the
   * appender adds under its own lock, so the copy is taken under it.
   */
  private List<ILoggingEvent> framesLogged() {
    synchronized (frames) {
      return new ArrayList<>(frames.list);
    }
  }

  /** A PeerCopy that sends {@value #PIECES} pieces of {@code piece}'s bytes. */
  private static PeerCopyGrpc.PeerCopyImplBase sending(byte[] piece) {
    return new PeerCopyGrpc.PeerCopyImplBase() {
      @Override
      public void pull(PullRequest request, StreamObserver<PullChunk> call) {
        for (int i = 0; i < PIECES; i++) {
          call.onNext(
              PullChunk.newBuilder()
                  .setData(
                      DataRange.newBuilder()
                          .setOffset((long) i << 20)
                          .setData(ByteString.copyFrom(piece)))
                  .build());
        }
        call.onCompleted();
      }
    };
  }
}
