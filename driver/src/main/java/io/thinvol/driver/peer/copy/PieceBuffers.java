package io.thinvol.driver.peer.copy;

import java.nio.ByteBuffer;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;

/**
 * The direct buffers one pull's pieces are copied into as they are parsed, reused once written. A
 * few suffice: gRPC parses the next piece while the puller writes the last. A buffer never given
 * back (a part dropped with its call) is the collector's, as any direct buffer.
 */
final class PieceBuffers {

  /** The sender's pieces are at most this long (PullStream), so one buffer fits any of them. */
  private static final int PIECE = 1 << 20;

  private static final int KEPT = 4;

  private final BlockingQueue<ByteBuffer> free = new ArrayBlockingQueue<>(KEPT);

  /** A buffer of {@code length} bytes to fill (position 0, limit {@code length}). */
  ByteBuffer take(int length) {
    ByteBuffer buffer = free.poll();
    if (buffer == null || buffer.capacity() < length) {
      buffer = ByteBuffer.allocateDirect(Math.max(length, PIECE));
    }
    return buffer.clear().limit(length);
  }

  void give(ByteBuffer buffer) {
    free.offer(buffer);
  }
}
