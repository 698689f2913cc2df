package io.thinvol.driver.peer.copy;

import java.nio.ByteBuffer;
import java.util.zip.CRC32;
import java.util.zip.CRC32C;

/**
 * The CRC-32C and the CRC-32 of some bytes, as the 8 bytes a copy's digests hash in place of the
 * bytes themselves (digest version 2). Both are intrinsics of the JVM under the image's C1-only JIT
 * (several GiB per CPU-second, where SHA-256 over the bytes runs at ~110 MiB), and their two
 * polynomials are independent: bytes that differ pass both only with a chance of about 2^-64. The
 * copy travels over authenticated TLS, so the check is against corruption and bugs, not forgery
 * (docs/decisions.md). Not thread-safe: one per thread.
 */
final class Checksums {

  /** What the peers' copies are checked with: PullRequest's and PullHeader's digest_version. */
  static final int DIGEST_VERSION = 2;

  static final int BYTES = 2 * Integer.BYTES;

  private final CRC32C castagnoli = new CRC32C();
  private final CRC32 ieee = new CRC32();

  /**
   * Puts the checksums of {@code bytes}' remaining bytes into {@code into}; moves no position of
   * {@code bytes}. A direct or writable heap buffer: the JDK copies a read-only heap buffer (a
   * ByteString's) 4 KiB at a time, in new arrays, before it checksums it.
   */
  void put(ByteBuffer bytes, ByteBuffer into) {
    castagnoli.reset();
    ieee.reset();
    castagnoli.update(bytes.duplicate());
    ieee.update(bytes.duplicate());
    into.putInt((int) castagnoli.getValue()).putInt((int) ieee.getValue());
  }
}
