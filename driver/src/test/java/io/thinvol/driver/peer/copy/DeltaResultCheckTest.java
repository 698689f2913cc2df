package io.thinvol.driver.peer.copy;

import static org.assertj.core.api.Assertions.assertThat;

import io.thinvol.driver.XfsDataDir;
import io.thinvol.driver.core.RemoteSources.DeltaBase;
import io.thinvol.driver.core.metadata.ByteRange;
import io.thinvol.driver.core.metadata.RangeCursor;
import io.thinvol.driver.host.BlockSumsFile;
import io.thinvol.driver.host.ImageExtents;
import io.thinvol.driver.host.ProcessCommandRunner;
import io.thinvol.peer.v1.ImageDigest;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The check of a delta's result against the snapshot's digest, on an xfs with reflinks as a node's
 * data dir: the base (a pulled image with its block record) is reflinked into the result and the
 * changes written onto it. The blocks the result still shares with a base whose record holds are
 * not read; every other way (no record, a damaged one, a base written since, times set back) the
 * result is read, and a base whose bytes changed gives a digest that is not the snapshot's.
 */
class DeltaResultCheckTest {

  private static final long MIB = 1L << 20;
  private static final long SIZE = 96 * MIB; // three segments
  private static final int CHANGE = 64 * 1024;
  private static final long[] CHANGES = {5 * MIB, 40 * MIB + 8192, 70 * MIB};

  private static XfsDataDir xfs;
  private Path dir;
  private Path base;
  private Path result;

  @BeforeAll
  static void mount() throws IOException {
    xfs = XfsDataDir.create(512 * MIB);
  }

  @AfterAll
  static void unmount() throws IOException {
    xfs.close();
  }

  @BeforeEach
  void pulledBase() throws IOException {
    dir = Files.createTempDirectory(xfs.path(), "vol-");
    base = dir.resolve("base.img");
    result = dir.resolve("result.img");
    Random random = new Random(11);
    try (FileChannel out =
        FileChannel.open(base, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      // 1 MiB of data in every 4, and a block of zeros written among them
      for (long at = 0; at < SIZE; at += 4 * MIB) {
        ImageBytes.write(out, at, ImageBytes.random(random, (int) MIB));
      }
      ImageBytes.write(out, 8 * MIB, new byte[4096]);
      out.force(true);
    }
    try (RandomAccessFile file = new RandomAccessFile(base.toFile(), "rw")) {
      file.setLength(SIZE);
    }
    BlockRecords.readAndSeal(base);
  }

  @Test
  void theBlocksSharedWithAnUnwrittenBaseAreTakenFromItsRecord() throws Exception {
    assertThat(BlockSumsFile.of(base)).exists();
    ImageDigest snapshot = applyChanges();
    BlockSums.Writer record = BlockSums.Writer.create(result, SIZE);

    Checked checked = check(snapshot, base, record);

    assertThat(checked.digest()).isEqualTo(snapshot);
    // the changed blocks only (64 KiB each, in new extents after copy-on-write), not 24 MiB
    assertThat(checked.readBytes()).isBetween(3L * CHANGE, 3L * CHANGE + 3 * MIB);

    // The result's own record vouches for a copy of it in turn: nothing read, the same digest.
    BlockRecords.seal(record, result);
    Path next = dir.resolve("next.img");
    new ProcessCommandRunner()
        .run(
            Duration.ofSeconds(30),
            List.of("cp", "--reflink=always", result.toString(), next.toString()));
    try (DeltaResultCheck check =
        DeltaResultCheck.open(next, SIZE, new DeltaBase(result, false), null)) {
      assertThat(check.digest(snapshot)).isEqualTo(snapshot);
      assertThat(check.readBytes()).isZero();
    }
  }

  @Test
  void aSnapshotsChangesAndDigestAreFoundFromTheRecordOfAnEarlierOneWithoutReadingIt()
      throws Exception {
    ImageDigest snapshot = applyChanges(); // the result stands for the later snapshot here
    List<ByteRange> changes = new ArrayList<>();
    for (long at : CHANGES) {
      changes.add(new ByteRange(at, CHANGE));
    }
    try (ImageExtents later = ImageExtents.open(result)) {
      try (DeltaParts delta = DeltaParts.of(later, SIZE, base, new Ranges(List.of()))) {
        assertThat(delta).isInstanceOf(RecordedDelta.class);
        assertThat(ranges(delta)).isEqualTo(changes);
        assertThat(delta.digest()).isEqualTo(snapshot);
      }

      // Without the earlier snapshot's record: the ranges compared, the digest read.
      Files.delete(BlockSumsFile.of(base));
      try (DeltaParts delta = DeltaParts.of(later, SIZE, base, new Ranges(changes))) {
        assertThat(delta).isInstanceOf(ComparedDelta.class);
        assertThat(ranges(delta)).isEqualTo(changes);
        assertThat(delta.digest()).isEqualTo(snapshot);
      }
    }
  }

  private static List<ByteRange> ranges(RangeCursor cursor) throws IOException {
    List<ByteRange> ranges = new ArrayList<>();
    for (ByteRange range = cursor.next(); range != null; range = cursor.next()) {
      ranges.add(range);
    }
    return ranges;
  }

  /** Ranges found by comparing the snapshots, as SnapshotMetadata would. */
  private static final class Ranges implements RangeCursor {
    private final Iterator<ByteRange> next;

    Ranges(List<ByteRange> ranges) {
      this.next = ranges.iterator();
    }

    @Override
    public long capacityBytes() {
      return SIZE;
    }

    @Override
    public ByteRange next() {
      return next.hasNext() ? next.next() : null;
    }

    @Override
    public void close() {}
  }

  @Test
  void aBaseWrittenSinceItsRecordIsReadAndItsChangeCaught() throws Exception {
    ImageDigest snapshot = applyChanges(); // what the sender's snapshot reads as
    Files.delete(result);
    try (FileChannel out = FileChannel.open(base, StandardOpenOption.WRITE)) {
      ImageBytes.write(
          out, 12 * MIB, ImageBytes.random(new Random(3), 4096)); // in data: S1 no more
    }
    ImageDigest corrupt = applyChanges();

    Checked checked = check(snapshot);

    assertThat(checked.readBytes()).isGreaterThan(24 * MIB);
    assertThat(checked.digest()).isNotEqualTo(snapshot).isEqualTo(corrupt);
  }

  @Test
  void aBaseWhoseTimesWereSetBackAfterAWriteIsNotBelieved() throws Exception {
    try (FileChannel out = FileChannel.open(base, StandardOpenOption.WRITE)) {
      ImageBytes.write(out, 12 * MIB, ImageBytes.random(new Random(3), 4096));
    }
    Files.setLastModifiedTime(base, ImageSeal.SEALED); // the change time moved all the same
    assertThat(BlockSums.open(base, new StringBuilder())).isEmpty();
  }

  @Test
  void aDamagedRecordIsReadPastWhereItIsDamagedAndNowhereElse() throws Exception {
    ImageDigest snapshot = applyChanges();
    try (FileChannel sums = FileChannel.open(BlockSumsFile.of(base), StandardOpenOption.WRITE)) {
      ImageBytes.write(sums, 2 * 4096 + 100, new byte[] {1, 2, 3}); // the first segment's entries
    }

    Checked checked = check(snapshot);

    assertThat(checked.digest()).isEqualTo(snapshot);
    // the first segment's 8 MiB of data read, not the other two's
    assertThat(checked.readBytes()).isBetween(8 * MIB, 8 * MIB + 3L * CHANGE + 3 * MIB);

    try (FileChannel sums = FileChannel.open(BlockSumsFile.of(base), StandardOpenOption.WRITE)) {
      ImageBytes.write(sums, 20, new byte[] {1}); // the header: no record at all
    }
    assertThat(check(snapshot).readBytes()).isGreaterThan(24 * MIB);
  }

  @Test
  void withoutARecordTheResultIsReadInFull() throws Exception {
    ImageDigest snapshot = applyChanges();
    Files.delete(BlockSumsFile.of(base));

    Checked checked = check(snapshot);

    assertThat(checked.digest()).isEqualTo(snapshot);
    assertThat(checked.readBytes()).isGreaterThan(24 * MIB);
  }

  /**
   * Reflinks the base into the result and writes the changes onto it; the digest the result reads
   * as, read in full.
   */
  private ImageDigest applyChanges() throws Exception {
    new ProcessCommandRunner()
        .run(
            Duration.ofSeconds(30),
            List.of("cp", "--reflink=always", base.toString(), result.toString()));
    Random random = new Random(5);
    try (FileChannel out = FileChannel.open(result, StandardOpenOption.WRITE)) {
      for (long at : CHANGES) {
        ImageBytes.write(out, at, ImageBytes.random(random, CHANGE));
      }
      out.force(true);
    }
    return ImageBytes.fullRead(result, SIZE);
  }

  private record Checked(ImageDigest digest, long readBytes) {}

  private Checked check(ImageDigest theirs) throws Exception {
    return check(theirs, base, null);
  }

  private Checked check(ImageDigest theirs, Path base, BlockSums.Writer record) throws Exception {
    try (DeltaResultCheck check =
        DeltaResultCheck.open(result, SIZE, new DeltaBase(base, false), record)) {
      ImageDigest ours = check.digest(theirs);
      return new Checked(ours, check.readBytes());
    }
  }
}
