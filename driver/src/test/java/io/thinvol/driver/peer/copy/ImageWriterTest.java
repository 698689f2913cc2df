package io.thinvol.driver.peer.copy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thinvol.driver.XfsDataDir;
import io.thinvol.driver.host.CommandResult;
import io.thinvol.driver.host.FileStats;
import io.thinvol.driver.host.ProcessCommandRunner;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A pulled image written by {@link ImageWriter} on the host's disk and on an xfs: every piece lands
 * at its offset and nothing else is allocated; aligned pieces leave no page of the image in the
 * page cache (util-linux's fincore tells), a piece off the filesystem's blocks goes through it.
 */
class ImageWriterTest {

  private static final int KIB = 1024;
  private static final int MIB = 1024 * KIB;
  private static final long SIZE = 16L * MIB;
  private static final ProcessCommandRunner HOST = new ProcessCommandRunner();

  @TempDir Path dir;

  @Test
  void alignedPiecesGoAroundThePageCacheAndLandWhereTheyBelong() throws IOException {
    assertWritesAround(dir.resolve("disk.img"));
  }

  @Test
  void onAnXfsDataDirToo() throws IOException {
    try (XfsDataDir xfs = XfsDataDir.create(512L * MIB)) {
      assertWritesAround(xfs.path().resolve("disk.img"));
    }
  }

  @Test
  void aPieceOffTheBlocksGoesThroughThePageCacheBetweenDirectOnes() throws IOException {
    Path image = dir.resolve("disk.img");
    byte[] expected = new byte[(int) SIZE];
    Random random = new Random(3);
    try (ImageWriter out = ImageWriter.create(image)) {
      put(out, expected, 0, 256 * KIB, random);
      put(out, expected, 256 * KIB + 512, 3000, random); // neither start nor length aligned
      put(out, expected, MIB, 512 * KIB, random);
      out.finish();
    }
    assertThat(cachedBytes(image)).isBetween(4096L, 8192L); // the one or two pages it touched
    assertThat(Files.readAllBytes(image)).isEqualTo(Arrays.copyOf(expected, MIB + 512 * KIB));
  }

  @Test
  void aPieceMustBeWrittenBeforeTheNextIsAskedFor() throws IOException {
    try (ImageWriter out = ImageWriter.create(dir.resolve("disk.img"))) {
      out.piece(0, 4096);
      assertThatThrownBy(() -> out.piece(4096, 4096)).isInstanceOf(IllegalStateException.class);
    }
  }

  private static void assertWritesAround(Path image) throws IOException {
    byte[] expected = new byte[(int) SIZE];
    Random random = new Random(7);
    // Contiguous pieces gathered into one write, a gap left a hole, pieces crossing a gathered
    // write's end, and a piece larger than one gathered write.
    List<long[]> pieces =
        List.of(
            new long[] {0, 256 * KIB},
            new long[] {256 * KIB, 256 * KIB},
            new long[] {2 * MIB, 768 * KIB},
            new long[] {2 * MIB + 768 * KIB, 512 * KIB},
            new long[] {5 * MIB, 4096},
            new long[] {8 * MIB, 2 * MIB},
            new long[] {SIZE - 64 * KIB, 64 * KIB});
    try (ImageWriter out = ImageWriter.create(image)) {
      for (long[] piece : pieces) {
        put(out, expected, piece[0], (int) piece[1], random);
      }
      out.finish();
    }
    assertThat(cachedBytes(image)).isZero();
    assertThat(Files.readAllBytes(image)).isEqualTo(expected);
    long sent = pieces.stream().mapToLong(piece -> piece[1]).sum();
    // the pieces, and at most a block of the filesystem's own for the extents' index
    assertThat(new FileStats(HOST).allocatedBytes(image)).isBetween(sent, sent + 4096);
  }

  private static void put(ImageWriter out, byte[] image, long offset, int length, Random random)
      throws IOException {
    byte[] bytes = new byte[length];
    random.nextBytes(bytes);
    System.arraycopy(bytes, 0, image, (int) offset, length);
    ByteBuffer piece = out.piece(offset, length);
    assertThat(piece.remaining()).isEqualTo(length);
    piece.put(bytes);
    out.written();
  }

  /** What of {@code file} the page cache holds, as fincore (util-linux) counts it. */
  private static long cachedBytes(Path file) throws IOException {
    CommandResult result =
        HOST.run(
            java.time.Duration.ofSeconds(30),
            List.of("fincore", "--bytes", "--noheadings", "--output", "RES", file.toString()));
    return Long.parseLong(result.stdout().strip());
  }
}
