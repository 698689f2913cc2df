package io.thinvol.driver.core.metadata;

import io.thinvol.driver.host.ImageExtents;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * The blocks whose content differs between two snapshot images of one volume, exactly: only the
 * ranges where either image holds data are looked at (both read as zeros elsewhere); inside them,
 * blocks both images share on disk (reflinks) are equal without being read, and every other block
 * is compared byte for byte. A block written again with the same bytes is therefore not a change,
 * and neither is a block that is a hole in one image and all zeros in the other: the volume reads
 * the same there.
 */
final class ChangedRanges implements RangeCursor {

  // Compared at a time: bounds both the work done per call of next() and the ranges queued.
  private static final long CHUNK = 16L << 20;
  private static final int BUFFER = 1 << 20;

  private final ImageExtents base;
  private final ImageExtents target;
  private final long capacity;
  private final int block;
  private final ByteBuffer baseBytes = ByteBuffer.allocateDirect(BUFFER);
  private final ByteBuffer targetBytes = ByteBuffer.allocateDirect(BUFFER);
  private final Deque<ByteRange> ready = new ArrayDeque<>();
  private long position;
  private long pendingStart = -1;
  private long pendingEnd = -1;
  private long bytesCompared;

  ChangedRanges(ImageExtents base, ImageExtents target, long capacity, long start, int block) {
    this.base = base;
    this.target = target;
    this.capacity = capacity;
    this.position = start;
    this.block = block;
  }

  @Override
  public long capacityBytes() {
    return capacity;
  }

  @Override
  public ByteRange next() throws IOException {
    while (ready.isEmpty() && position < capacity) {
      advance();
    }
    if (ready.isEmpty()) {
      flush();
    }
    return ready.poll();
  }

  private void advance() throws IOException {
    long baseData = base.nextData(position);
    long targetData = target.nextData(position);
    long data = earliest(baseData, targetData);
    if (data < 0 || data >= capacity) {
      position = capacity;
      flush();
      return;
    }
    if (data > position) {
      flush(); // holes in both: unchanged
      position = data;
    }
    long end = Math.max(dataEnd(base, baseData), dataEnd(target, targetData));
    long to = Math.min(Math.min(end, position + CHUNK), capacity);
    compare(position, to);
    position = to;
  }

  private long dataEnd(ImageExtents image, long data) throws IOException {
    return data == position ? image.nextHole(position) : position;
  }

  private static long earliest(long a, long b) {
    if (a < 0) {
      return b;
    }
    return b < 0 ? a : Math.min(a, b);
  }

  private void compare(long from, long to) throws IOException {
    long at = from;
    for (ByteRange shared :
        SharedRuns.of(base.physical(from, to), target.physical(from, to), from, to)) {
      compareBytes(at, shared.offset());
      flush();
      at = shared.end();
    }
    compareBytes(at, to);
  }

  /** Bytes read from each image so far: what sharing did not settle. */
  long bytesCompared() {
    return bytesCompared;
  }

  private void compareBytes(long from, long to) throws IOException {
    for (long at = from; at < to; ) {
      int length = (int) Math.min(BUFFER, to - at);
      bytesCompared += length;
      base.read(baseBytes.clear().limit(length), at);
      target.read(targetBytes.clear().limit(length), at);
      for (int offset = 0; offset < length; ) {
        // blocks are aligned to the volume's start, so a run starting mid-block ends the block
        int size = (int) Math.min(block - Math.floorMod(at + offset, block), length - offset);
        if (baseBytes.slice(offset, size).mismatch(targetBytes.slice(offset, size)) >= 0) {
          changed(at + offset, size);
        } else {
          flush();
        }
        offset += size;
      }
      at += length;
    }
  }

  private void changed(long offset, long length) {
    if (pendingEnd != offset) {
      flush();
      pendingStart = offset;
    }
    pendingEnd = offset + length;
  }

  private void flush() {
    if (pendingStart >= 0) {
      ready.add(new ByteRange(pendingStart, pendingEnd - pendingStart));
      pendingStart = -1;
      pendingEnd = -1;
    }
  }

  @Override
  public void close() throws IOException {
    try {
      base.close();
    } finally {
      target.close();
    }
  }
}
