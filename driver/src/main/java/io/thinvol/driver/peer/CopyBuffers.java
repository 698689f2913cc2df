package io.thinvol.driver.peer;

import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;

/**
 * Netty's buffers for the connections that carry copies between nodes (the TLS port and the
 * channels to peers): pooled in one direct arena of 1 MiB chunks, without thread caches. The
 * driver's other endpoints allocate each buffer anew ({@code NettyBuffers}), which costs nothing at
 * a few calls a second; a copy moves hundreds of MiB in 16 KiB TLS records and 256 KiB messages,
 * and a fresh buffer for each was a third of the sender's CPU (malloc's mmap, page faults, zeroing,
 * munmap: docs/benchmarks.md). One chunk is kept once used; more live only while copies run.
 */
public final class CopyBuffers {

  private static final int PAGE = 8192;
  private static final int MAX_ORDER = 7; // chunks of PAGE << 7 = 1 MiB: gRPC's largest buffer

  /** The allocator of those connections. */
  public static final ByteBufAllocator ALLOCATOR =
      new PooledByteBufAllocator(true, 0, 1, PAGE, MAX_ORDER, 0, 0, false);

  private CopyBuffers() {}
}
