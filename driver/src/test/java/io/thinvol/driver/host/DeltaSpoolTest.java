package io.thinvol.driver.host;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The redo journal of a delta applied in place: applied once or again, it leaves the same image
 * (bytes written, runs of zeros punched out as holes, the size kept); a spool that is not whole is
 * refused before anything is written.
 */
class DeltaSpoolTest {

  private static final int MIB = 1 << 20;

  @TempDir Path dir;

  @Test
  void appliedOnceOrTwiceItLeavesTheSameImageWithHolesWhereZerosWere() throws Exception {
    byte[] base = random(5 * MIB, 1);
    Path image = dir.resolve("disk.img");
    Files.write(image, base);
    byte[] large = random(3 * MIB, 2); // more than one record
    byte[] small = random(8192, 3);
    Path spool = dir.resolve("delta.spool");
    try (DeltaSpool writing = DeltaSpool.create(spool)) {
      writing.bytes(4096, ByteBuffer.wrap(small));
      writing.zeros(MIB, 64 * 1024);
      ByteBuffer piece = ByteBuffer.wrap(large);
      writing.bytes(MIB + 64 * 1024, piece);
      assertThat(piece.position()).as("the caller's buffer is not consumed").isZero();
      writing.finish();
      assertThat(writing.dataBytes()).isEqualTo(small.length + large.length);
    }
    byte[] expected = base.clone();
    System.arraycopy(small, 0, expected, 4096, small.length);
    Arrays.fill(expected, MIB, MIB + 64 * 1024, (byte) 0);
    System.arraycopy(large, 0, expected, MIB + 64 * 1024, large.length);

    assertThat(DeltaSpool.apply(spool, image)).isEqualTo(2 + 3); // the large piece in three records
    assertThat(Files.readAllBytes(image)).isEqualTo(expected);
    long allocated = allocated(image);
    assertThat(DeltaSpool.apply(spool, image)).isEqualTo(5);
    assertThat(Files.readAllBytes(image)).isEqualTo(expected);
    assertThat(allocated(image)).isEqualTo(allocated).isLessThan(5L * MIB);
  }

  @Test
  void aSpoolWithoutItsEndOrWithAChangedByteIsRefusedBeforeAnythingIsWritten() throws Exception {
    Path image = dir.resolve("disk.img");
    byte[] base = random(MIB, 4);
    Files.write(image, base);
    Path spool = dir.resolve("delta.spool");
    try (DeltaSpool writing = DeltaSpool.create(spool)) {
      writing.bytes(0, ByteBuffer.wrap(random(64 * 1024, 5)));
      writing.bytes(512 * 1024, ByteBuffer.wrap(random(64 * 1024, 6)));
    } // never finished: a crash before the commit
    assertThatThrownBy(() -> DeltaSpool.apply(spool, image))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("ends before its end record");

    Path whole = dir.resolve("whole.spool");
    try (DeltaSpool writing = DeltaSpool.create(whole)) {
      writing.bytes(0, ByteBuffer.wrap(random(64 * 1024, 5)));
      writing.bytes(512 * 1024, ByteBuffer.wrap(random(64 * 1024, 6)));
      writing.finish();
    }
    try (RandomAccessFile file = new RandomAccessFile(whole.toFile(), "rw")) {
      long at = file.length() - 1000; // inside the second record's data
      file.seek(at);
      int was = file.read();
      file.seek(at);
      file.write(was ^ 1);
    }
    assertThatThrownBy(() -> DeltaSpool.apply(whole, image))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("record 1 fails its checksum");
    assertThat(Files.readAllBytes(image)).as("not even the first record applied").isEqualTo(base);
  }

  private static byte[] random(int length, long seed) {
    byte[] bytes = new byte[length];
    new Random(seed).nextBytes(bytes);
    return bytes;
  }

  private static long allocated(Path image) {
    return new FileStats(new ProcessCommandRunner()).allocatedBytes(image);
  }
}
