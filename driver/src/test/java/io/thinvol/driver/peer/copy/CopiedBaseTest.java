package io.thinvol.driver.peer.copy;

import static org.assertj.core.api.Assertions.assertThat;

import io.thinvol.driver.core.RemoteSources.DeltaBase;
import io.thinvol.driver.host.BlockSumsFile;
import io.thinvol.driver.host.ProcessCommandRunner;
import io.thinvol.driver.host.SparseFiles;
import io.thinvol.peer.v1.ImageDigest;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The check of a delta's result that is a full copy of its base, as on a data dir without reflinks
 * (the test's temporary directory): the base (a pulled image with its block record) is copied with
 * {@code cp --sparse=always --reflink=never} and the changes applied onto the copy as pieces. With
 * the base's record valid, the digest and the result's record come from that record and the pieces
 * without a read of either image; a change the pieces missed still fails the check; a base written
 * since its record, or a piece off the blocks, has the result read in full.
 */
class CopiedBaseTest {

  private static final long MIB = 1L << 20;
  private static final long SIZE = 96 * MIB; // three segments
  private static final int HEADER = 64; // a record's seal: the image's times

  @TempDir Path dir;
  private Path base;
  private Path result;
  private Path snapshot;

  /** A change of the delta: random bytes, or {@code zeros} punched out. */
  private record Piece(long offset, int length, boolean zeros) {}

  private final List<Piece> pieces =
      List.of(
          new Piece(5 * MIB, 64 * 1024, false), // in data
          new Piece(8 * MIB + 4096, 8192, true), // data that reads as zeros now
          new Piece(32 * MIB - 8192, 16 * 1024, false), // across a segment's end
          new Piece(70 * MIB + 4096, 4096, false)); // in a hole

  @BeforeEach
  void pulledBase() throws Exception {
    base = dir.resolve("base.img");
    result = dir.resolve("result.img");
    snapshot = dir.resolve("snapshot.img");
    Random random = new Random(11);
    try (FileChannel out =
        FileChannel.open(base, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      for (long at = 0; at < SIZE; at += 4 * MIB) { // 1 MiB of data in every 4
        ImageBytes.write(out, at, ImageBytes.random(random, (int) MIB));
      }
      out.force(true);
    }
    try (RandomAccessFile file = new RandomAccessFile(base.toFile(), "rw")) {
      file.setLength(SIZE);
    }
    BlockRecords.readAndSeal(base);
    copy(base, snapshot);
    apply(snapshot, pieces, null); // what the sender's snapshot reads as
    copy(base, result);
  }

  @Test
  void aFullCopyOfARecordedBaseIsCheckedFromItsRecordAndThePiecesWithoutARead() throws Exception {
    ImageDigest theirs = ImageBytes.fullRead(snapshot, SIZE);
    BlockSums.Writer record = BlockSums.Writer.create(result, SIZE);

    try (DeltaResultCheck check = open(record)) {
      apply(result, pieces, check);
      assertThat(check.digest(theirs)).isEqualTo(theirs);
      assertThat(check.readBytes()).isZero();
    }

    // The result's record as a read of it makes it, byte for byte past the seal.
    BlockRecords.seal(record, result);
    byte[] fromPieces = Files.readAllBytes(BlockSumsFile.of(result));
    Files.delete(BlockSumsFile.of(result));
    BlockRecords.readAndSeal(result);
    byte[] fromReading = Files.readAllBytes(BlockSumsFile.of(result));
    assertThat(Arrays.copyOfRange(fromPieces, HEADER, fromPieces.length))
        .isEqualTo(Arrays.copyOfRange(fromReading, HEADER, fromReading.length));
  }

  @Test
  void aChangeThePiecesMissedFailsTheCheck() throws Exception {
    apply(snapshot, List.of(new Piece(40 * MIB, 4096, false)), null); // not in the delta
    ImageDigest theirs = ImageBytes.fullRead(snapshot, SIZE);

    try (DeltaResultCheck check = open(null)) {
      apply(result, pieces, check);
      assertThat(check.digest(theirs)).isNotEqualTo(theirs);
      assertThat(check.readBytes()).as("read in full before refusing").isGreaterThan(24 * MIB);
    }
  }

  @Test
  void aBaseWrittenSinceItsRecordHasTheResultReadInFull() throws Exception {
    ImageDigest theirs = ImageBytes.fullRead(snapshot, SIZE);
    try (FileChannel out = FileChannel.open(base, StandardOpenOption.WRITE)) {
      ImageBytes.write(out, 60 * MIB, ImageBytes.random(new Random(3), 4096));
    }

    try (DeltaResultCheck check = open(null)) {
      apply(result, pieces, check);
      assertThat(check.digest(theirs)).isEqualTo(theirs); // the copy was taken before the write
      assertThat(check.readBytes()).isGreaterThan(24 * MIB);
    }
  }

  @Test
  void aPieceOffTheBlocksHasTheResultReadInFull() throws Exception {
    List<Piece> unaligned = new ArrayList<>(pieces);
    unaligned.add(new Piece(80 * MIB + 100, 1000, false));
    apply(snapshot, unaligned.subList(pieces.size(), unaligned.size()), null);
    ImageDigest theirs = ImageBytes.fullRead(snapshot, SIZE);

    try (DeltaResultCheck check = open(null)) {
      apply(result, unaligned, check);
      assertThat(check.digest(theirs)).isEqualTo(theirs);
      assertThat(check.readBytes()).isGreaterThan(24 * MIB);
    }
  }

  private DeltaResultCheck open(BlockSums.Writer record) throws IOException {
    return DeltaResultCheck.open(result, SIZE, new DeltaBase(base, true), record);
  }

  /**
   * Writes the pieces onto {@code image} (each told to {@code check} first, as a pull does), then
   * syncs it and tells {@code check} every piece is written.
   */
  private static void apply(Path image, List<Piece> pieces, DeltaResultCheck check)
      throws IOException {
    try (FileChannel out = FileChannel.open(image, StandardOpenOption.WRITE)) {
      for (Piece piece : pieces) {
        if (piece.zeros()) {
          if (check != null) {
            check.zeros(piece.offset(), piece.length());
          }
          SparseFiles.punch(image, piece.offset(), piece.length());
        } else {
          ByteBuffer bytes = ByteBuffer.allocateDirect(piece.length());
          bytes.put(ImageBytes.random(new Random(piece.offset()), piece.length())).flip();
          if (check != null) {
            check.piece(piece.offset(), bytes);
          }
          while (bytes.hasRemaining()) {
            out.write(bytes, piece.offset() + bytes.position());
          }
        }
      }
      out.force(true);
    }
    if (check != null) {
      check.written();
    }
  }

  private static void copy(Path from, Path to) throws Exception {
    new ProcessCommandRunner()
        .run(
            Duration.ofSeconds(30),
            List.of("cp", "--sparse=always", "--reflink=never", from.toString(), to.toString()));
  }
}
