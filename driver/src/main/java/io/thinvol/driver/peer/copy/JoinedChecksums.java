package io.thinvol.driver.peer.copy;

import java.nio.ByteBuffer;

/**
 * The {@link Checksums} of consecutive stretches of bytes, joined into those of all of them without
 * reading the bytes again. A CRC is linear over GF(2): the CRC of A followed by B is the CRC of A
 * carried across B's length (its product with x^(8|B|) modulo the CRC's polynomial) plus the CRC of
 * B. A copy's sender and receiver checksum every 4096-byte block of a piece for the image's block
 * record ({@link PieceBlocks}); joining those gives the piece's checksums for the copy's digest
 * ({@link RangeDigest}) without a second pass over the piece's bytes (about 0.06 CPU-seconds per
 * 512 MiB on each side). Not thread-safe: one per thread.
 */
final class JoinedChecksums {

  private static final Crc CASTAGNOLI = new Crc(0x82F63B78);
  private static final Crc IEEE = new Crc(0xEDB88320);

  private int castagnoli;
  private int ieee;

  /** Nothing joined yet: the checksums of no bytes, zero for both CRCs. */
  void reset() {
    castagnoli = 0;
    ieee = 0;
  }

  /** Appends a stretch of {@code length} bytes whose CRC-32C and CRC-32 are given. */
  void add(int castagnoli, int ieee, int length) {
    this.castagnoli = CASTAGNOLI.across(this.castagnoli, length) ^ castagnoli;
    this.ieee = IEEE.across(this.ieee, length) ^ ieee;
  }

  /** Appends {@code length} zero bytes (a block a piece holds as zeros). */
  void addZeros(int length) {
    add(CASTAGNOLI.zeros(length), IEEE.zeros(length), length);
  }

  /** Puts the joined checksums into {@code into}, as {@link Checksums#put} puts them. */
  void putInto(ByteBuffer into) {
    into.putInt(castagnoli).putInt(ieee);
  }

  /**
   * One reflected CRC-32: bit 31 of an int holds the coefficient of x^0, bit 0 that of x^31, and
   * the polynomial's x^32 is implied.
   */
  private static final class Crc {

    private static final int X0 = 1 << 31;

    private final int polynomial;
    private final int zeroBlock;

    /** The carry across one block, linear in the CRC, so a table for each of its bytes. */
    private final int[][] acrossBlock = new int[Integer.BYTES][256];

    Crc(int polynomial) {
      this.polynomial = polynomial;
      int carry = xToThe8n(ZeroBlocks.BLOCK);
      this.zeroBlock = zerosCarried(carry);
      for (int b = 0; b < Integer.BYTES; b++) {
        for (int value = 0; value < 256; value++) {
          acrossBlock[b][value] = multiply(value << (8 * b), carry);
        }
      }
    }

    /** {@code crc} carried across {@code length} more bytes. */
    int across(int crc, int length) {
      if (length != ZeroBlocks.BLOCK) {
        return multiply(crc, xToThe8n(length));
      }
      return acrossBlock[0][crc & 0xff]
          ^ acrossBlock[1][(crc >>> 8) & 0xff]
          ^ acrossBlock[2][(crc >>> 16) & 0xff]
          ^ acrossBlock[3][crc >>> 24];
    }

    /** The CRC of {@code length} zero bytes. */
    int zeros(int length) {
      return length == ZeroBlocks.BLOCK ? zeroBlock : zerosCarried(xToThe8n(length));
    }

    /**
     * The CRC of the zero bytes {@code carry} carries across: zero bytes only carry the register,
     * so what is left is its initial value and final inversion (both all ones).
     */
    private int zerosCarried(int carry) {
      return ~multiply(~0, carry);
    }

    /** x^(8n) modulo the polynomial, by squaring. */
    private int xToThe8n(long n) {
      int result = X0;
      int power = X0 >>> 8; // x^8
      for (long e = n; e > 0; e >>>= 1) {
        if ((e & 1) != 0) {
          result = multiply(result, power);
        }
        power = multiply(power, power);
      }
      return result;
    }

    /** The product of {@code a} and {@code b} modulo the polynomial. */
    private int multiply(int a, int b) {
      int product = 0;
      int term = b; // b times x^i, for i from 0
      for (int bit = X0; bit != 0; bit >>>= 1) {
        if ((a & bit) != 0) {
          product ^= term;
        }
        term = (term & 1) != 0 ? (term >>> 1) ^ polynomial : term >>> 1;
      }
      return product;
    }
  }
}
