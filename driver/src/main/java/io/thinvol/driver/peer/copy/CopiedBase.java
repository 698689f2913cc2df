package io.thinvol.driver.peer.copy;

import io.thinvol.driver.host.ImageExtents;
import io.thinvol.peer.v1.ImageDigest;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The blocks of a delta's result that is a full copy of its base (a data dir without reflinks),
 * known without a read of it: a block no piece wrote holds what the copy of the base put there,
 * which is what the base's record says while its seal holds (the base is locked, attached nowhere
 * and provably unwritten since it was recorded); a block a piece wrote holds that piece's bytes,
 * checksummed as they are written. So neither the base nor the result is read; what this trusts is
 * the copy of the base (the host's {@code cp}) and the writes, as the record of a whole pull trusts
 * its writes ({@link PieceBlocks}). The pieces come in ascending order; a segment is done once a
 * piece lies past it. A piece not of whole blocks, a damaged slice of the base's record or a seal
 * broken meanwhile has the result read instead (all of it, or that segment).
 */
final class CopiedBase {

  private static final int BLOCK = ZeroBlocks.BLOCK;

  private final ImageExtents result;
  private final long size;
  private final BaseBlocks base;
  private final BlockSums.Writer record;
  private final ContentDigest.Combined digest;
  private SegmentSums segment; // the one the last piece went into; null before the first
  private long next; // where the segments not yet done start
  private boolean unaligned;

  CopiedBase(ImageExtents result, long size, BaseBlocks base, BlockSums.Writer record) {
    this.result = result;
    this.size = size;
    this.base = base;
    this.record = record;
    this.digest = new ContentDigest.Combined(size);
  }

  /** A piece of bytes about to be written at {@code offset}; moves no position. */
  void piece(long offset, ByteBuffer bytes) throws IOException {
    if (!wholeBlocks(offset, bytes.remaining())) {
      return;
    }
    for (int done = 0; done < bytes.remaining(); ) {
      long at = offset + done;
      SegmentSums into = segmentAt(at);
      int length = (int) Math.min(bytes.remaining() - done, into.end - at);
      into.add(at, bytes.slice(bytes.position() + done, length));
      done += length;
    }
  }

  /** A run of zeros about to be punched out at {@code offset}. */
  void zeros(long offset, long length) throws IOException {
    if (!wholeBlocks(offset, length)) {
      return;
    }
    for (long at = offset; at < offset + length; ) {
      SegmentSums into = segmentAt(at);
      long to = Math.min(offset + length, into.end);
      into.zeros(at, to);
      at = to;
    }
  }

  /**
   * The digest of the whole result, every piece written and synced; the result's blocks recorded.
   * Null when the result must be read for it (a piece not of whole blocks, the base's seal broke).
   */
  ImageDigest finish() throws IOException {
    if (unaligned) {
      return null;
    }
    doneUpTo(size);
    if (!base.stillSealed()) {
      return null;
    }
    return digest.digest();
  }

  /** The bytes of the result read for its digest: those of a damaged slice of the record only. */
  long readBytes() {
    return digest.readBytes();
  }

  private boolean wholeBlocks(long offset, long length) {
    boolean whole = offset % BLOCK == 0 && (length % BLOCK == 0 || offset + length == size);
    unaligned |= !whole;
    return !unaligned;
  }

  /** The segment holding {@code offset}, every segment below it done. */
  private SegmentSums segmentAt(long offset) throws IOException {
    if (segment != null && offset < segment.end) {
      return segment;
    }
    doneUpTo(offset - offset % ContentDigest.SEGMENT);
    segment = fromBase(next);
    next = segment.end;
    return segment;
  }

  /** Finishes the current segment, then each untouched one before {@code end}. */
  private void doneUpTo(long end) throws IOException {
    if (segment != null) {
      done(segment);
      segment = null;
    }
    while (next < end) {
      SegmentSums untouched = fromBase(next);
      next = untouched.end;
      done(untouched);
    }
  }

  /** The segment at {@code start} as the copy of the base left it. */
  private SegmentSums fromBase(long start) throws IOException {
    long end = Math.min(size, start + ContentDigest.SEGMENT);
    int[] recorded = base.recorded(start);
    if (recorded == null) {
      // Read instead: what the copy of the base put there, the pieces still to come laid over it.
      return SegmentSums.of(result, start, end, new AtomicBoolean(), null);
    }
    return SegmentSums.recorded(start, end, recorded);
  }

  private void done(SegmentSums finished) throws IOException {
    if (record != null) {
      record.put(finished);
    }
    digest.add(ContentDigest.Segment.of(finished));
  }
}
