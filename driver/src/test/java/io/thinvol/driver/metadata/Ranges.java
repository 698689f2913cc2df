package io.thinvol.driver.metadata;

import csi.v1.BlockMetadata;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.SortedSet;

/** Byte ranges as the tests compare them: {@code [offset, end)} pairs. */
record Ranges(List<long[]> list) {

  static Ranges of(List<BlockMetadata> metadata) {
    List<long[]> list = new ArrayList<>();
    metadata.forEach(m -> list.add(new long[] {m.getByteOffset(), m.getSizeBytes()}));
    return new Ranges(list);
  }

  /** Consecutive blocks merged into extents, as a VARIABLE_LENGTH answer lists them. */
  static Ranges ofBlocks(SortedSet<Long> blocks, int blockSize) {
    List<long[]> list = new ArrayList<>();
    for (long block : blocks) {
      long offset = block * blockSize;
      long[] last = list.isEmpty() ? null : list.get(list.size() - 1);
      if (last != null && last[0] + last[1] == offset) {
        last[1] += blockSize;
      } else {
        list.add(new long[] {offset, blockSize});
      }
    }
    return new Ranges(list);
  }

  long bytes() {
    return list.stream().mapToLong(r -> r[1]).sum();
  }

  boolean covers(long offset, long length) {
    return list.stream().anyMatch(r -> r[0] <= offset && offset + length <= r[0] + r[1]);
  }

  /** As text, so that a failed comparison shows the ranges. */
  List<String> shown() {
    return list.stream().map(r -> r[0] + "+" + r[1]).toList();
  }

  /** The first non-zero byte of {@code image} outside every range, or -1. */
  long nonZeroOutside(Path image, long size) throws IOException {
    ByteBuffer zeros = ByteBuffer.allocate(1 << 20);
    ByteBuffer buffer = ByteBuffer.allocate(zeros.capacity());
    try (FileChannel channel = FileChannel.open(image, StandardOpenOption.READ)) {
      long gap = 0;
      for (long[] range : list) {
        long found = nonZero(channel, gap, range[0], buffer, zeros);
        if (found >= 0) {
          return found;
        }
        gap = range[0] + range[1];
      }
      return nonZero(channel, gap, size, buffer, zeros);
    }
  }

  private static long nonZero(
      FileChannel channel, long from, long to, ByteBuffer buffer, ByteBuffer zeros)
      throws IOException {
    for (long at = from; at < to; ) {
      buffer.clear().limit((int) Math.min(buffer.capacity(), to - at));
      int read = channel.read(buffer, at);
      if (read <= 0) {
        return -1;
      }
      int mismatch = buffer.flip().mismatch(zeros.clear().limit(read));
      if (mismatch >= 0) {
        return at + mismatch;
      }
      at += read;
    }
    return -1;
  }
}
