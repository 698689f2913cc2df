package io.thinvol.driver.peer.copy;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Joined checksums equal the checksums of the joined bytes ({@link Checksums}, java.util.zip's
 * CRC32C and CRC32): whole blocks, blocks of zeros, a short last block, and no bytes at all.
 */
class JoinedChecksumsTest {

  private static final int BLOCK = ZeroBlocks.BLOCK;

  @Test
  void blocksJoinedAreTheChecksumsOfTheirBytes() {
    Random random = new Random(11);
    for (int round = 0; round < 20; round++) {
      int blocks = 1 + random.nextInt(300);
      int tail = round % 3 == 0 ? 1 + random.nextInt(BLOCK - 1) : 0; // a short last block
      byte[] bytes = new byte[blocks * BLOCK + tail];
      random.nextBytes(bytes);
      JoinedChecksums joined = new JoinedChecksums();
      joined.reset();
      for (int at = 0; at < bytes.length; at += BLOCK) {
        int length = Math.min(BLOCK, bytes.length - at);
        if (random.nextInt(4) == 0) {
          java.util.Arrays.fill(bytes, at, at + length, (byte) 0);
          joined.addZeros(length);
        } else {
          ByteBuffer block = ByteBuffer.wrap(bytes, at, length).slice();
          ByteBuffer sums = ByteBuffer.allocate(Checksums.BYTES);
          new Checksums().put(block, sums);
          joined.add(sums.getInt(0), sums.getInt(Integer.BYTES), length);
        }
      }
      assertThat(joinedOf(joined)).as("round %d", round).isEqualTo(checksumsOf(bytes));
    }
  }

  @Test
  void nothingJoinedIsTheChecksumsOfNoBytes() {
    JoinedChecksums joined = new JoinedChecksums();
    joined.reset();
    assertThat(joinedOf(joined)).isEqualTo(checksumsOf(new byte[0]));
  }

  private static long joinedOf(JoinedChecksums joined) {
    ByteBuffer into = ByteBuffer.allocate(Checksums.BYTES);
    joined.putInto(into);
    return into.getLong(0);
  }

  private static long checksumsOf(byte[] bytes) {
    ByteBuffer into = ByteBuffer.allocate(Checksums.BYTES);
    new Checksums().put(ByteBuffer.wrap(bytes), into);
    return into.getLong(0);
  }
}
