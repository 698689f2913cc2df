package io.thinvol.driver.peer.copy;

import static org.assertj.core.api.Assertions.assertThat;

import io.thinvol.driver.core.BlockRecorder;
import io.thinvol.driver.core.metadata.ByteRange;
import io.thinvol.driver.core.metadata.RangeCursor;
import io.thinvol.driver.host.BlockSumsFile;
import io.thinvol.driver.host.ImageExtents;
import io.thinvol.driver.host.ImageFiles;
import io.thinvol.driver.host.ProcessCommandRunner;
import io.thinvol.peer.v1.ImageDigest;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A snapshot taken as a full copy (the test's temporary directory has no reflinks) records its
 * blocks from the pieces of its copy, and a move's delta from S1 to S2 then reads neither: the
 * changes come from comparing the two records, the digest of S2 from S2's. A record that is missing
 * (an older driver's snapshot, a crash before it was published), stale (S2 written since) or torn
 * (damaged, cut short) is not trusted: S2, or the damaged segment, is read, and the ranges and the
 * digest are those of a full read.
 */
class SnapshotRecordTest {

  private static final long MIB = 1L << 20;
  private static final long SIZE = 96 * MIB; // three segments
  private static final long CHANGED_BLOCKS = 6;

  @TempDir Path dir;
  private final ImageFiles files = new ImageFiles(new ProcessCommandRunner());
  private Path volume;
  private Path s1;
  private Path s2;

  @BeforeEach
  void twoSnapshots() throws Exception {
    volume = dir.resolve("volume.img");
    Random random = new Random(17);
    try (RandomAccessFile file = new RandomAccessFile(volume.toFile(), "rw")) {
      file.setLength(SIZE);
      for (long at = 0; at < SIZE; at += 4 * MIB) { // 1 MiB of data in every 4
        ImageBytes.write(file.getChannel(), at, ImageBytes.random(random, (int) MIB));
      }
    }
    s1 = snapshot("s1");
    try (FileChannel out = FileChannel.open(volume, StandardOpenOption.WRITE)) {
      ImageBytes.write(out, 4 * MIB + 8192, ImageBytes.random(random, 8192)); // in data
      ImageBytes.write(out, 8 * MIB, new byte[4096]); // data that reads as zeros now
      ImageBytes.write(out, 32 * MIB - 4096, ImageBytes.random(random, 8192)); // across segments
      ImageBytes.write(out, 70 * MIB + 4096, ImageBytes.random(random, 4096)); // in a hole
    }
    s2 = snapshot("s2");
  }

  /** A snapshot of the volume as the driver takes one without reflinks. */
  private Path snapshot(String name) throws Exception {
    Path image = Files.createDirectory(dir.resolve(name)).resolve("image");
    BlockRecorder.Recording record = BlockRecords.RECORDER.start(image, SIZE);
    files.copySparse(volume, image, Duration.ofMinutes(1), record);
    files.syncWithDirectory(image);
    assertThat(record.seal(image)).isTrue();
    return image;
  }

  @Test
  void theRecordTakenWhileCopyingIsTheOneAReadMakes() throws Exception {
    assertThat(BlockSums.open(s2, new StringBuilder())).isPresent();
    ImageBytes.assertRecordedAsAReadRecordsIt(s2);
  }

  @Test
  void aDeltaBetweenTwoRecordedSnapshotsReadsNeither() throws Exception {
    Delta delta = delta();
    assertThat(delta.readBytes).as("S2 is not read").isZero();
    assertThat(delta.digest).isEqualTo(ImageBytes.fullRead(s2, SIZE));
    assertThat(delta.changedBytes).isEqualTo(CHANGED_BLOCKS * 4096);
    assertThat(delta.appliedOntoS1()).as("S1 with the changes reads as S2").isEqualTo(-1L);
  }

  @Test
  void anOlderDriversSnapshotWithoutARecordIsRead() throws Exception {
    Files.delete(BlockSumsFile.of(s2));
    assertReadInFull(delta());
  }

  @Test
  void aSnapshotWhoseRecordWasNeverPublishedIsRead() throws Exception {
    // a crash mid-snapshot: the pieces were recorded, the record never sealed
    Files.delete(BlockSumsFile.of(s2));
    BlockRecorder.Recording unsealed = BlockRecords.RECORDER.start(s2, SIZE);
    try (FileChannel in = FileChannel.open(s2, StandardOpenOption.READ)) {
      ByteBuffer first = ByteBuffer.allocate((int) MIB);
      in.read(first, 0);
      unsealed.add(0, first.flip());
    }
    assertReadInFull(delta());
  }

  @Test
  void aSnapshotWrittenSinceItsRecordIsRead() throws Exception {
    try (FileChannel out = FileChannel.open(s2, StandardOpenOption.WRITE)) {
      ImageBytes.write(out, 48 * MIB + 4096, ImageBytes.random(new Random(2), 4096)); // in data
    }
    Files.setLastModifiedTime(s2, FileTime.from(Instant.parse("2000-01-01T00:00:00Z")));
    assertReadInFull(delta());
  }

  @Test
  void aTornRecordIsNotTrusted() throws Exception {
    Path record = BlockSumsFile.of(s2);
    try (FileChannel sums = FileChannel.open(record, StandardOpenOption.WRITE)) {
      sums.truncate(4096); // its checksums lost: the header alone
    }
    assertReadInFull(delta());
  }

  @Test
  void aDamagedSliceHasOnlyItsSegmentRead() throws Exception {
    Path record = BlockSumsFile.of(s2);
    byte[] bytes = Files.readAllBytes(record);
    int firstSlice = 8192; // the header's page, then the segments' checksums' page
    bytes[firstSlice + 12] ^= 1;
    Files.write(record, bytes, StandardOpenOption.WRITE);
    Delta delta = delta();
    assertThat(delta.readBytes).as("the first segment's data").isEqualTo(8 * MIB);
    assertThat(delta.digest).isEqualTo(ImageBytes.fullRead(s2, SIZE));
    assertThat(delta.appliedOntoS1()).isEqualTo(-1L);
  }

  @Test
  void aSnapshotWrittenDuringTheDeltaHasItsDigestReadInFull() throws Exception {
    ImageDigest recorded;
    try (ImageExtents target = ImageExtents.open(s2);
        DeltaParts parts = DeltaParts.of(target, SIZE, s1, NO_COMPARISON)) {
      while (parts.next() != null) {}
      try (FileChannel out = FileChannel.open(s2, StandardOpenOption.WRITE)) {
        ImageBytes.write(out, 90 * MIB, ImageBytes.random(new Random(4), 4096));
      }
      recorded = parts.digest();
    }
    assertThat(recorded).isEqualTo(ImageBytes.fullRead(s2, SIZE)); // what S2 reads as now
  }

  private void assertReadInFull(Delta delta) throws Exception {
    assertThat(delta.readBytes).as("S2's data is read").isEqualTo(24 * MIB + 4096);
    assertThat(delta.digest).isEqualTo(ImageBytes.fullRead(s2, SIZE));
    assertThat(delta.appliedOntoS1()).isEqualTo(-1L);
  }

  /** What a move's delta from S1 to S2 sends, and what it read of S2. */
  private Delta delta() throws Exception {
    try (ImageExtents target = ImageExtents.open(s2);
        DeltaParts parts = DeltaParts.of(target, SIZE, s1, NO_COMPARISON)) {
      List<ByteRange> ranges = new ArrayList<>();
      for (ByteRange range = parts.next(); range != null; range = parts.next()) {
        ranges.add(range);
      }
      ImageDigest digest = parts.digest();
      RecordedDelta recorded = (RecordedDelta) parts;
      return new Delta(ranges, digest, recorded.readBytes());
    }
  }

  private final class Delta {
    final List<ByteRange> ranges;
    final ImageDigest digest;
    final long readBytes;
    final long changedBytes;

    Delta(List<ByteRange> ranges, ImageDigest digest, long readBytes) {
      this.ranges = ranges;
      this.digest = digest;
      this.readBytes = readBytes;
      this.changedBytes = ranges.stream().mapToLong(ByteRange::length).sum();
    }

    /** Where a copy of S1 with S2's bytes of the ranges first differs from S2; -1: nowhere. */
    long appliedOntoS1() throws Exception {
      Path result = dir.resolve("result-" + System.nanoTime());
      Files.copy(s1, result);
      try (FileChannel in = FileChannel.open(s2, StandardOpenOption.READ);
          FileChannel out = FileChannel.open(result, StandardOpenOption.WRITE)) {
        for (ByteRange range : ranges) {
          ByteBuffer bytes = ByteBuffer.allocate((int) range.length());
          in.read(bytes, range.offset());
          ImageBytes.write(out, range.offset(), bytes.array());
        }
      }
      return Files.mismatch(result, s2);
    }
  }

  /** S1 has a valid record here: the byte-for-byte comparison is never used. */
  private static final RangeCursor NO_COMPARISON =
      new RangeCursor() {
        @Override
        public long capacityBytes() {
          return SIZE;
        }

        @Override
        public ByteRange next() {
          throw new AssertionError("S1's record is valid: no comparison is made");
        }

        @Override
        public void close() {}
      };
}
