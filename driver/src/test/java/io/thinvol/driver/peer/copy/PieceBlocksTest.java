package io.thinvol.driver.peer.copy;

import static org.assertj.core.api.Assertions.assertThat;

import io.thinvol.driver.host.BlockSumsFile;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The record a whole copy takes from its pieces is the record a read of the finished image makes
 * ({@link BlockRecords#readAndSeal}), byte for byte past the seal: blocks of zeros inside a piece,
 * pieces across a segment's end, a segment no piece reached and holes at the end. A piece off the
 * 4096-byte blocks makes no record and leaves nothing behind. The copy's digest, taken with the
 * record ({@link RangeDigest#add(long, ByteBuffer, PieceBlocks)}, the blocks' checksums joined), is
 * the digest taken over the pieces' bytes.
 */
class PieceBlocksTest {

  private static final int KIB = 1024;
  private static final int MIB = 1024 * KIB;
  private static final long SEGMENT = ContentDigest.SEGMENT;
  private static final long SIZE = 3 * SEGMENT + 8 * MIB; // the last segment a short one
  private static final int HEADER = 64; // the seal: the image's times, which differ

  @TempDir Path dir;

  @Test
  void piecesRecordWhatAReadOfTheImageRecords() throws IOException {
    Path image = dir.resolve("disk.img");
    Random random = new Random(5);
    boolean sealed =
        writeAndSeal(
            image,
            (out, blocks) -> {
              put(out, blocks, 0, 256 * KIB, random, 64 * KIB); // a run of zeros inside
              put(out, blocks, MIB, 12 * KIB, random, -1);
              put(out, blocks, SEGMENT - 128 * KIB, 256 * KIB, random, -1); // across a segment
              // nothing in the third segment
              put(out, blocks, 3 * SEGMENT + 4096, 4096, random, 0); // a block of zeros alone
              put(out, blocks, 3 * SEGMENT + 2 * MIB, 512 * KIB, random, -1);
            });
    assertThat(sealed).isTrue();
    byte[] fromPieces = Files.readAllBytes(BlockSumsFile.of(image));

    Files.delete(BlockSumsFile.of(image));
    BlockRecords.readAndSeal(image);
    byte[] fromReading = Files.readAllBytes(BlockSumsFile.of(image));

    assertThat(fromPieces.length).isEqualTo(fromReading.length).isGreaterThan(HEADER);
    assertThat(Arrays.copyOfRange(fromPieces, HEADER, fromPieces.length))
        .isEqualTo(Arrays.copyOfRange(fromReading, HEADER, fromReading.length));
    try (BlockSums record = BlockSums.open(image, new StringBuilder()).orElseThrow()) {
      assertThat(record.length()).isEqualTo(SIZE);
    }
  }

  @Test
  void aPieceOffTheBlocksMakesNoRecord() throws IOException {
    Path image = dir.resolve("disk.img");
    Random random = new Random(9);
    boolean sealed =
        writeAndSeal(
            image,
            (out, blocks) -> {
              put(out, blocks, 0, 8192, random, -1);
              put(out, blocks, 8192, 1000, random, -1);
            });
    assertThat(sealed).isFalse();
    try (Stream<Path> files = Files.list(dir)) {
      assertThat(files).containsExactly(image);
    }
  }

  private interface Pieces {
    void write(FileChannel out, Recorder blocks) throws IOException;
  }

  /** The record and the digest of the pieces, taken with it and over their bytes. */
  private record Recorder(PieceBlocks blocks, RangeDigest withBlocks, RangeDigest overBytes) {}

  /**
   * A new image of {@code SIZE} bytes written by {@code pieces}, recorded as they go, synced and
   * extended as the driver leaves it; whether the record was sealed.
   */
  private static boolean writeAndSeal(Path image, Pieces pieces) throws IOException {
    try (FileChannel out =
        FileChannel.open(image, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      Recorder recorder =
          new Recorder(PieceBlocks.of(image, SIZE), new RangeDigest(), new RangeDigest());
      pieces.write(out, recorder);
      out.force(true);
      extend(image);
      assertThat(recorder.withBlocks().trailer()).isEqualTo(recorder.overBytes().trailer());
      return recorder.blocks().seal(image);
    }
  }

  /** A piece of random bytes; {@code zerosAt} >= 0: 4096 zeros there inside it. */
  private static void put(
      FileChannel out, Recorder recorder, long offset, int length, Random random, int zerosAt)
      throws IOException {
    byte[] bytes = new byte[length];
    random.nextBytes(bytes);
    if (zerosAt >= 0) {
      Arrays.fill(bytes, zerosAt, zerosAt + 4096, (byte) 0);
    }
    ByteBuffer piece = ByteBuffer.allocateDirect(length).put(bytes).flip();
    recorder.withBlocks().add(offset, piece, recorder.blocks());
    recorder.overBytes().add(offset, piece);
    out.write(piece, offset);
  }

  /** The image at its full size, as the driver leaves it before recording it. */
  private static void extend(Path image) throws IOException {
    try (RandomAccessFile file = new RandomAccessFile(image.toFile(), "rw")) {
      file.setLength(SIZE);
    }
  }
}
