package io.thinvol.driver.core.metadata;

import static org.assertj.core.api.Assertions.assertThat;

import io.thinvol.driver.XfsDataDir;
import io.thinvol.driver.host.ImageExtents;
import io.thinvol.driver.host.ProcessCommandRunner;
import io.thinvol.driver.store.Catalog;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The delta's rules on real files: what reads the same is no change, whether it is a hole, zeros or
 * shared blocks; blocks a reflinked copy still shares with its source are not even read.
 */
class ChangedRangesTest {

  private static final int BLOCK = SnapshotMetadata.BLOCK;
  private static final long SIZE = 64L << 20;
  private static final Duration TIMEOUT = Duration.ofMinutes(1);

  @Test
  void holesAndZerosReadTheSameAndAreNoChange() throws IOException {
    Path dir = Files.createTempDirectory("thinvol-delta-");
    try {
      Path base = dir.resolve("base.img");
      Path target = dir.resolve("target.img");
      byte[] data = random(BLOCK, 1);
      byte[] other = random(BLOCK, 2);
      try (RandomAccessFile b = new RandomAccessFile(base.toFile(), "rw");
          RandomAccessFile t = new RandomAccessFile(target.toFile(), "rw")) {
        b.setLength(SIZE);
        t.setLength(SIZE);
        write(t, 10, new byte[BLOCK]); // zeros written where the base has a hole: no change
        write(b, 20, new byte[BLOCK]); // zeros in the base, a hole in the target: no change
        write(b, 30, data); // data in the base, a hole in the target: changed
        write(b, 40, data); // the same bytes in both: no change
        write(t, 40, data);
        write(b, 41, data); // different bytes: changed, and merged with the next block
        write(t, 41, other);
        write(t, 42, other); // data where the base has a hole: changed
        write(t, 16383, other); // the volume's last block
      }
      ChangedRanges delta = delta(base, target);
      assertThat(drain(delta)).containsExactly("122880+4096", "167936+8192", "67104768+4096");
    } finally {
      Catalog.removeTree(dir);
    }
  }

  @Test
  void blocksSharedByReflinkAreEqualWithoutBeingRead() throws IOException {
    try (XfsDataDir xfs = XfsDataDir.create()) {
      Path base = xfs.path().resolve("base.img");
      Path target = xfs.path().resolve("target.img");
      try (RandomAccessFile b = new RandomAccessFile(base.toFile(), "rw")) {
        for (long block = 0; block < SIZE / BLOCK; block += 256) {
          b.seek(block * BLOCK);
          b.write(random(256 * BLOCK, block));
        }
        b.getFD().sync();
      }
      new ProcessCommandRunner()
          .run(TIMEOUT, List.of("cp", "--reflink=always", base.toString(), target.toString()));
      try (RandomAccessFile t = new RandomAccessFile(target.toFile(), "rw")) {
        write(t, 1000, random(BLOCK, 7)); // changed
        t.seek(2000L * BLOCK); // written again with the bytes it holds: unshared, but no change
        byte[] same = new byte[BLOCK];
        t.readFully(same);
        write(t, 2000, same);
        t.getFD().sync();
      }
      ChangedRanges delta = delta(base, target);
      assertThat(drain(delta)).containsExactly((1000L * BLOCK) + "+" + BLOCK);
      assertThat(delta.bytesCompared())
          .as("only the two blocks the copy no longer shares are read")
          .isEqualTo(2L * BLOCK);
    }
  }

  private static ChangedRanges delta(Path base, Path target) throws IOException {
    return new ChangedRanges(ImageExtents.open(base), ImageExtents.open(target), SIZE, 0, BLOCK);
  }

  private static List<String> drain(ChangedRanges delta) throws IOException {
    List<String> ranges = new ArrayList<>();
    try (delta) {
      for (ByteRange range = delta.next(); range != null; range = delta.next()) {
        ranges.add(range.offset() + "+" + range.length());
      }
    }
    return ranges;
  }

  private static void write(RandomAccessFile file, long block, byte[] data) throws IOException {
    file.seek(block * BLOCK);
    file.write(data);
  }

  private static byte[] random(int length, long seed) {
    byte[] bytes = new byte[length];
    new Random(seed).nextBytes(bytes);
    return bytes;
  }
}
