package io.thinvol.driver.peer.copy;

import io.thinvol.driver.core.metadata.AllocatedRanges;
import io.thinvol.driver.core.metadata.ByteRange;
import io.thinvol.driver.core.metadata.RangeCursor;
import io.thinvol.driver.host.ImageExtents;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.util.concurrent.CancellationException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * What each 4096-byte block of one segment of an image reads as: all zeros (a hole will do), or
 * data with its {@link Checksums}. Blocks in holes are zeros without being read; blocks a base
 * vouches for ({@link BaseBlocks}) take the base's recorded checksums; every other block is read.
 */
final class SegmentSums {

  private static final int BLOCK = ZeroBlocks.BLOCK;
  private static final int BUFFER = 1 << 20;
  private static final ThreadLocal<ByteBuffer> BUFFERS =
      ThreadLocal.withInitial(() -> ByteBuffer.allocateDirect(BUFFER));

  final long start;
  final long end;
  final boolean[] data;
  final int[] sums; // CRC-32C and CRC-32 of block i at 2i and 2i + 1
  private final Checksums checksums = new Checksums(); // one thread computes a segment
  private final ByteBuffer pair = ByteBuffer.allocate(Checksums.BYTES);
  private long readBytes;

  private SegmentSums(long start, long end) {
    this.start = start;
    this.end = end;
    int blocks = (int) ((end - start + BLOCK - 1) / BLOCK);
    this.data = new boolean[blocks];
    this.sums = new int[2 * blocks];
  }

  /** The blocks of {@code [start, end)} of {@code image}; {@code base} may be null. */
  static SegmentSums of(
      ImageExtents image, long start, long end, AtomicBoolean stop, BaseBlocks base)
      throws IOException {
    SegmentSums segment = new SegmentSums(start, end);
    BaseBlocks.Known known = base == null ? null : base.knownIn(image, start, end);
    // Not closed: closing the cursor would close the caller's image.
    RangeCursor ranges = new AllocatedRanges(image, end, start);
    long done = start;
    for (ByteRange range = ranges.next(); range != null; range = ranges.next()) {
      // Whole 4096-byte blocks, each once, whatever block the data dir's filesystem has.
      long from = Math.max(done, range.offset() - range.offset() % BLOCK);
      long to = Math.min(end, (range.end() + BLOCK - 1) / BLOCK * BLOCK);
      long unread = from; // the start of the blocks still to read, up to at
      for (long at = from; at < to; at += BLOCK) {
        int block = (int) ((at - start) / BLOCK);
        if (known != null && known.has(block)) {
          segment.readRun(image, unread, at, stop);
          known.copyTo(block, segment);
          unread = at + BLOCK;
        } else if (at + BLOCK - unread >= BUFFER) {
          segment.readRun(image, unread, Math.min(to, at + BLOCK), stop);
          unread = at + BLOCK;
        }
      }
      segment.readRun(image, unread, to, stop);
      done = Math.max(done, to);
    }
    return segment;
  }

  /** Reads the blocks of {@code [from, to)} (at most {@link #BUFFER} bytes) and checksums them. */
  private void readRun(ImageExtents image, long from, long to, AtomicBoolean stop)
      throws IOException {
    if (from >= to) {
      return;
    }
    if (stop.get()) {
      throw new CancellationException("the digest is no longer needed");
    }
    int length = (int) (Math.min(to, end) - from);
    ByteBuffer buffer = BUFFERS.get(); // one per hashing thread: direct memory is freed late
    image.read(buffer.clear().limit(length), from);
    readBytes += length;
    add(from, buffer.flip());
  }

  /** The segment {@code [start, end)} of a new image, its blocks all zeros until {@link #add}ed. */
  static SegmentSums empty(long start, long end) {
    return new SegmentSums(start, end);
  }

  /**
   * The segment {@code [start, end)} as a record holds it ({@link BaseBlocks#recorded}: 2 checksums
   * per block, 0 and 0 for zeros); the blocks past the recorded ones are zeros.
   */
  static SegmentSums recorded(long start, long end, int[] recorded) {
    SegmentSums segment = new SegmentSums(start, end);
    int blocks = Math.min(segment.data.length, recorded.length / 2);
    for (int block = 0; block < blocks; block++) {
      segment.data[block] = recorded[2 * block] != 0 || recorded[2 * block + 1] != 0;
    }
    System.arraycopy(recorded, 0, segment.sums, 0, 2 * blocks);
    return segment;
  }

  /**
   * Checksums the blocks of {@code bytes}' remaining bytes, which the image holds at {@code from}
   * (a block's start, inside this segment) in place of what it held; moves no position.
   */
  void add(long from, ByteBuffer bytes) {
    int length = Math.min(bytes.remaining(), (int) (end - from));
    ByteBuffer buffer = bytes.slice(bytes.position(), length);
    for (int offset = 0; offset < length; offset += BLOCK) {
      int block = (int) ((from + offset - start) / BLOCK);
      if (ZeroBlocks.isZero(buffer, offset)) {
        zero(block);
      } else {
        checksums.put(buffer.slice(offset, Math.min(BLOCK, length - offset)), pair.clear());
        data[block] = true;
        sums[2 * block] = pair.getInt(0);
        sums[2 * block + 1] = pair.getInt(Integer.BYTES);
      }
    }
  }

  /**
   * Joins the checksums of the blocks of {@code [from, to)} (whole blocks, inside) to {@code into}.
   */
  void join(long from, long to, JoinedChecksums into) {
    for (long at = from; at < to; at += BLOCK) {
      int block = (int) ((at - start) / BLOCK);
      int length = (int) Math.min(BLOCK, end - at);
      if (data[block]) {
        into.add(sums[2 * block], sums[2 * block + 1], length);
      } else {
        into.addZeros(length);
      }
    }
  }

  /** The blocks of {@code [from, to)} (whole blocks, inside this segment) read as zeros now. */
  void zeros(long from, long to) {
    for (long at = from; at < Math.min(to, end); at += BLOCK) {
      zero((int) ((at - start) / BLOCK));
    }
  }

  private void zero(int block) {
    data[block] = false;
    sums[2 * block] = 0;
    sums[2 * block + 1] = 0;
  }

  /** The bytes this segment read from its image (what no base vouched for). */
  long readBytes() {
    return readBytes;
  }

  /**
   * Hashes every data block as its offset, CRC-32C and CRC-32 (digest version 2) into {@code
   * sha256}; returns the bytes of data.
   */
  long hashInto(MessageDigest sha256) {
    ByteBuffer record = ByteBuffer.allocate(Long.BYTES + Checksums.BYTES);
    long dataBytes = 0;
    for (int block = 0; block < data.length; block++) {
      if (data[block]) {
        long offset = start + (long) block * BLOCK;
        record.clear().putLong(offset).putInt(sums[2 * block]).putInt(sums[2 * block + 1]);
        sha256.update(record.flip());
        dataBytes += Math.min(BLOCK, end - offset);
      }
    }
    return dataBytes;
  }
}
