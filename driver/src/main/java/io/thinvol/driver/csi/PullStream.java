package io.thinvol.driver.csi;

import com.google.protobuf.UnsafeByteOperations;
import io.grpc.stub.ServerCallStreamObserver;
import io.thinvol.driver.core.CsiException;
import io.thinvol.driver.core.PointInTimeImages;
import io.thinvol.driver.core.SourceImage;
import io.thinvol.driver.core.metadata.AllocatedRanges;
import io.thinvol.driver.core.metadata.ByteRange;
import io.thinvol.driver.core.metadata.RangeCursor;
import io.thinvol.driver.peer.copy.RangeDigest;
import io.thinvol.driver.store.AccessType;
import io.thinvol.peer.v1.DataRange;
import io.thinvol.peer.v1.PullChunk;
import io.thinvol.peer.v1.PullHeader;
import java.io.IOException;
import java.nio.ByteBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends one point-in-time image to a peer at the peer's pace (gRPC's onReady): the header, the
 * image's data ranges in pieces of at most {@value #PIECE} bytes, read only when the transport can
 * take them, and the trailer with the digest of every piece. The image (and whatever keeps it
 * unchanged: the volume's lock, a private copy) is released when the stream ends, fails, or the
 * peer goes away.
 */
final class PullStream {

  /** A piece's bytes at most: well inside gRPC's 4 MiB message limit. */
  static final int PIECE = 1 << 20;

  private static final Logger log = LoggerFactory.getLogger(PullStream.class);

  private final String what;
  private final String nodeId;
  private final ServerCallStreamObserver<PullChunk> call;
  private final PointInTimeImages.Opened source;
  private final RangeCursor ranges;
  private final RangeDigest digest = new RangeDigest();
  private final long started = System.nanoTime();
  private boolean headerSent;
  private boolean finished;
  private long position;
  private long rangeEnd;

  private PullStream(
      String what,
      String nodeId,
      ServerCallStreamObserver<PullChunk> call,
      PointInTimeImages.Opened source) {
    this.what = what;
    this.nodeId = nodeId;
    this.call = call;
    this.source = source;
    // Not closed on its own: closing the source closes the image it walks.
    this.ranges = new AllocatedRanges(source.image(), source.description().sizeBytes(), 0);
  }

  static void serve(
      String what,
      String nodeId,
      ServerCallStreamObserver<PullChunk> call,
      PointInTimeImages.Opened source) {
    PullStream stream = new PullStream(what, nodeId, call, source);
    call.setOnCancelHandler(stream::cancelled);
    call.setOnReadyHandler(stream::pump);
  }

  private void pump() {
    try {
      while (!finished && call.isReady()) {
        PullChunk next = next();
        if (next != null) {
          call.onNext(next);
          continue;
        }
        call.onNext(PullChunk.newBuilder().setTrailer(digest.trailer()).build());
        finish();
        call.onCompleted();
        log.info(
            "sent {}: {} bytes in {} ms",
            what,
            digest.bytes(),
            (System.nanoTime() - started) / 1_000_000);
      }
    } catch (IOException e) {
      finish();
      Rpc.fail(call, CsiException.internal("cannot read " + what + ": " + e.getMessage(), e));
    } catch (RuntimeException e) {
      finish();
      Rpc.fail(call, e);
    }
  }

  /** The header, then the next piece of data; null once every range was sent. */
  private PullChunk next() throws IOException {
    if (!headerSent) {
      headerSent = true;
      return PullChunk.newBuilder().setHeader(header(source.description())).build();
    }
    if (position >= rangeEnd) {
      ByteRange range = ranges.next();
      if (range == null) {
        return null;
      }
      position = range.offset();
      rangeEnd = range.end();
    }
    int length = (int) Math.min(PIECE, rangeEnd - position);
    ByteBuffer bytes = ByteBuffer.allocate(length);
    source.image().read(bytes, position);
    bytes.flip();
    DataRange data =
        DataRange.newBuilder()
            .setOffset(position)
            .setData(UnsafeByteOperations.unsafeWrap(bytes))
            .build();
    digest.add(position, data.getData());
    position += length;
    return PullChunk.newBuilder().setData(data).build();
  }

  private PullHeader header(SourceImage image) {
    return PullHeader.newBuilder()
        .setSizeBytes(image.sizeBytes())
        .setAccessType(image.accessType() == AccessType.BLOCK ? "block" : "mount")
        .setFsType(image.fsType() == null ? "" : image.fsType())
        .setFormatted(image.formatted())
        .setNodeId(nodeId)
        .build();
  }

  private void cancelled() {
    log.info("the peer went away after {} bytes of {}; stopped reading", digest.bytes(), what);
    finish();
  }

  private void finish() {
    if (!finished) {
      finished = true;
      source.close();
    }
  }
}
