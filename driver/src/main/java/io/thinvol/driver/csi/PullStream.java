package io.thinvol.driver.csi;

import com.google.protobuf.UnsafeByteOperations;
import io.grpc.stub.ServerCallStreamObserver;
import io.thinvol.driver.core.CsiException;
import io.thinvol.driver.core.PointInTimeImages;
import io.thinvol.driver.core.SourceImage;
import io.thinvol.driver.core.metadata.AllocatedRanges;
import io.thinvol.driver.core.metadata.ByteRange;
import io.thinvol.driver.core.metadata.RangeCursor;
import io.thinvol.driver.peer.copy.DeltaParts;
import io.thinvol.driver.peer.copy.PieceBlocks;
import io.thinvol.driver.peer.copy.RangeDigest;
import io.thinvol.driver.peer.copy.ZeroBlocks;
import io.thinvol.driver.store.AccessType;
import io.thinvol.peer.v1.DataRange;
import io.thinvol.peer.v1.ImageDigest;
import io.thinvol.peer.v1.PullChunk;
import io.thinvol.peer.v1.PullHeader;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * Sends one point-in-time image to a peer, from a thread of its own: it opens the image (taking the
 * volume's lock where the image is read in place: a lock is released by the thread that took it, so
 * neither can be one of gRPC's callback threads), then sends the header, the image's data ranges in
 * pieces of at most {@value #PIECE} bytes, each read only once the transport can take it (gRPC's
 * onReady), and the trailer with the digest of every piece. A delta sends the changed ranges
 * instead, its all-zero blocks as zero pieces, and after the trailer the digest of the whole image.
 * Heartbeats, when asked for, fill its silences ({@link PullCall}). A peer that goes away stops it;
 * the image, and whatever keeps it unchanged, is released when it ends.
 */
final class PullStream implements Runnable {

  /**
   * A piece's bytes at most: one message, and one HTTP/2 frame where the receiver asks for large
   * ones (peer/LargeDataFrames). Each piece costs both sides a hand-over between threads and gRPC's
   * work per message, so fewer and larger pieces copy faster (docs/benchmarks.md). Neither side
   * holds a piece on its heap (the receiver parses it into a direct buffer, PullPartMarshaller), so
   * the size no longer weighs on the 64 MiB heap.
   */
  static final int PIECE = 1 << 20;

  private static final int IN_FLIGHT = 2 * PIECE;
  private static final Logger log = LoggerFactory.getLogger(PullStream.class);

  private final String what;
  private final String nodeId;
  private final PullCall call;
  private final Supplier<PointInTimeImages.Opened> open;
  private final RangeCursor delta;
  private final Path base;
  private final PieceBlocks record;
  private final Runnable sealRecord;
  private final RangeDigest digest = new RangeDigest();
  // Each piece is read into this, in place: gRPC's Netty transport copies a message into its own
  // buffers inside onNext (MessageFramer), so it is free again once a send returns. On the heap:
  // protobuf wraps an array's bytes as they are, but copies a direct buffer's into a new array, an
  // allocation per piece that kept the sender's young generation collecting.
  private final ByteBuffer pieces = ByteBuffer.allocate(PIECE);

  /**
   * Registered on the calling (handler) thread, as gRPC requires; {@link #run()} sends.
   *
   * @param delta the changed ranges to send, closed at the end; null to send every data range
   * @param base the image of a delta's base snapshot, whose record spares reading what the target
   *     shares with it for the digest of the whole; null for a whole copy
   * @param heartbeat the longest silence while it works; zero: no heartbeats (not asked for)
   * @param record the record of a whole snapshot's blocks, taken from the pieces sent and sealed by
   *     {@code sealRecord} before the trailer, so that it is there when the puller asks for a delta
   *     from it; null for none
   */
  PullStream(
      String what,
      String nodeId,
      ServerCallStreamObserver<PullChunk> call,
      Supplier<PointInTimeImages.Opened> open,
      RangeCursor delta,
      Path base,
      Duration heartbeat,
      PieceBlocks record,
      Runnable sealRecord) {
    this.what = what;
    this.nodeId = nodeId;
    // A few pieces in flight: the reading of the next overlaps the sending of the last.
    this.call = new PullCall(call, IN_FLIGHT, heartbeat);
    this.open = open;
    this.delta = delta;
    this.base = base;
    this.record = record;
    this.sealRecord = sealRecord;
  }

  @Override
  public void run() {
    MDC.put(Rpc.MDC_RPC, "PeerCopy.Pull");
    MDC.put(Rpc.MDC_VOLUME, what);
    long started = System.nanoTime();
    call.beginHeartbeats();
    RangeCursor compared = delta; // until the delta's parts take it over
    try (PointInTimeImages.Opened source = open.get()) {
      DeltaParts parts = null;
      try {
        if (compared != null) {
          parts = DeltaParts.of(source.image(), source.description().sizeBytes(), base, compared);
          compared = null;
        }
        send(source, parts);
      } finally {
        if (parts != null) {
          parts.close(); // before the image: no read of it may still be under way
        }
      }
      if (call.cancelled()) {
        log.info("the peer went away after {} bytes; stopped reading", digest.bytes());
        return;
      }
      log.info("sent {} bytes in {} ms", digest.bytes(), (System.nanoTime() - started) / 1_000_000);
    } catch (IOException e) {
      call.fail(CsiException.internal("cannot read " + what + ": " + e.getMessage(), e));
    } catch (RuntimeException e) {
      call.fail(e);
    } finally {
      closeQuietly(compared);
      if (record != null) {
        record.discard(); // unless sealed
      }
      call.close();
      MDC.remove(Rpc.MDC_RPC);
      MDC.remove(Rpc.MDC_VOLUME);
    }
  }

  /** Sends the header, the ranges (a delta's changes, or every data range), the trailer. */
  private void send(PointInTimeImages.Opened source, DeltaParts delta) throws IOException {
    long size = source.description().sizeBytes();
    // Not closed on its own: closing the source closes the image it walks.
    RangeCursor ranges = delta != null ? delta : new AllocatedRanges(source.image(), size, 0);
    if (!call.awaitReady(digest.bytes())) {
      return;
    }
    call.send(PullChunk.newBuilder().setHeader(header(source.description())).build());
    if (!sendRanges(source, ranges, delta != null) || !call.awaitReady(digest.bytes())) {
      return;
    }
    if (record != null) {
      sealRecord.run();
    }
    call.send(PullChunk.newBuilder().setTrailer(digest.trailer()).build());
    if (delta != null) {
      ImageDigest image = delta.digest();
      if (!call.awaitReady(digest.bytes())) {
        return;
      }
      call.send(PullChunk.newBuilder().setImage(image).build());
    }
    call.complete();
  }

  private static void closeQuietly(RangeCursor cursor) {
    if (cursor != null) {
      try {
        cursor.close();
      } catch (IOException e) {
        log.debug("closing a delta: {}", e.toString());
      }
    }
  }

  /** Sends every range; false once the peer went away. */
  private boolean sendRanges(PointInTimeImages.Opened source, RangeCursor ranges, boolean delta)
      throws IOException {
    for (ByteRange range = ranges.next(); range != null; range = ranges.next()) {
      for (long at = range.offset(); at < range.end(); at += PIECE) {
        if (!call.awaitReady(digest.bytes())) {
          return false; // nothing read ahead of what the transport takes
        }
        ByteBuffer bytes = read(source, at, (int) Math.min(PIECE, range.end() - at));
        for (DataRange piece : delta ? runs(at, bytes) : List.of(data(at, bytes))) {
          if (!call.awaitReady(digest.bytes())) {
            return false;
          }
          call.send(PullChunk.newBuilder().setData(piece).build());
        }
      }
    }
    return true;
  }

  private ByteBuffer read(PointInTimeImages.Opened source, long offset, int length)
      throws IOException {
    ByteBuffer bytes = pieces.clear().limit(length);
    source.image().read(bytes, offset);
    return bytes.flip();
  }

  private DataRange data(long offset, ByteBuffer bytes) {
    digest.add(offset, bytes, record); // a writable heap buffer: checksummed in place
    return DataRange.newBuilder()
        .setOffset(offset)
        .setData(UnsafeByteOperations.unsafeWrap(bytes))
        .build();
  }

  /** A changed piece as runs of data and of all-zero blocks, which the receiver punches out. */
  private List<DataRange> runs(long offset, ByteBuffer bytes) {
    List<DataRange> runs = new ArrayList<>();
    int limit = bytes.limit();
    for (int start = 0, end; start < limit; start = end) {
      boolean zeros = ZeroBlocks.isZero(bytes, start);
      end = Math.min(start + ZeroBlocks.BLOCK, limit);
      while (end < limit && ZeroBlocks.isZero(bytes, end) == zeros) {
        end = Math.min(end + ZeroBlocks.BLOCK, limit);
      }
      runs.add(
          zeros
              ? zeros(offset + start, end - start)
              : data(offset + start, bytes.slice(start, end - start)));
    }
    return runs;
  }

  private DataRange zeros(long offset, int length) {
    digest.addZeros(offset, length);
    return DataRange.newBuilder().setOffset(offset).setZeroLength(length).build();
  }

  private PullHeader header(SourceImage image) {
    return PullHeader.newBuilder()
        .setSizeBytes(image.sizeBytes())
        .setAccessType(image.accessType() == AccessType.BLOCK ? "block" : "mount")
        .setFsType(image.fsType() == null ? "" : image.fsType())
        .setFormatted(image.formatted())
        .setNodeId(nodeId)
        .setDigestVersion(RangeDigest.version())
        .setHeartbeatSeconds((int) call.heartbeat().toSeconds())
        .build();
  }
}
