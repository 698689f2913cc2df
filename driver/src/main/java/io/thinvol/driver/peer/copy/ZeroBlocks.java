package io.thinvol.driver.peer.copy;

import java.nio.ByteBuffer;

/** The 4096-byte blocks a copy tells apart: all zeros (a hole will do) or data. */
public final class ZeroBlocks {

  /** The largest block of a data dir's filesystem and of a loop device. */
  public static final int BLOCK = 4096;

  private static final ByteBuffer ZEROS = ByteBuffer.allocateDirect(BLOCK).asReadOnlyBuffer();

  private ZeroBlocks() {}

  /** Whether the block of {@code bytes} at {@code offset} (shorter at its limit) is all zeros. */
  public static boolean isZero(ByteBuffer bytes, int offset) {
    int length = Math.min(BLOCK, bytes.limit() - offset);
    return bytes.slice(offset, length).mismatch(ZEROS.slice(0, length)) < 0;
  }
}
