package io.thinvol.driver.host;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.InterruptedIOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The in-process sparse copy a snapshot is taken with where there are no reflinks, on the test's
 * temporary directory (the host's disk): it reads as its source everywhere, leaves blocks of zeros
 * as holes, hands every data block to its caller once in ascending pieces of whole blocks, and ends
 * at its deadline.
 */
class SparseCopyTest {

  private static final long MIB = 1L << 20;
  private static final long SIZE = 40 * MIB;

  @TempDir Path dir;
  private Path source;
  private Path copy;

  @BeforeEach
  void source() throws Exception {
    source = dir.resolve("source.img");
    copy = dir.resolve("copy.img");
    Random random = new Random(5);
    try (RandomAccessFile file = new RandomAccessFile(source.toFile(), "rw")) {
      file.setLength(SIZE);
      FileChannel out = file.getChannel();
      write(out, 0, random(random, (int) MIB));
      write(out, 5 * MIB, random(random, 3 * (int) MIB));
      write(out, 6 * MIB, new byte[16 * 1024]); // allocated zeros inside data
      write(out, 37 * MIB + 4096, random(random, 4096));
      write(out, SIZE - 100, random(random, 100)); // a partial block at the end
      out.force(true);
    }
  }

  @Test
  void theCopyReadsAsItsSourceWithItsZerosLeftHolesAndEveryBlockHandedOnceInOrder()
      throws Exception {
    List<long[]> pieces = new ArrayList<>();
    List<Boolean> matching = new ArrayList<>();
    try (FileChannel in = FileChannel.open(source, StandardOpenOption.READ)) {
      SparseCopy.copy(
          source,
          copy,
          (offset, bytes) -> {
            pieces.add(new long[] {offset, bytes.remaining()});
            ByteBuffer expected = ByteBuffer.allocate(bytes.remaining());
            try {
              in.read(expected, offset);
            } catch (Exception e) {
              throw new AssertionError(e);
            }
            matching.add(expected.flip().equals(bytes));
          });
    }

    assertThat(Files.size(copy)).isEqualTo(SIZE);
    assertThat(Files.mismatch(source, copy)).as("the copy reads as its source").isEqualTo(-1L);
    FileStats stats = new FileStats(new ProcessCommandRunner());
    assertThat(stats.allocatedBytes(copy))
        .as("the zeros are holes")
        .isLessThanOrEqualTo(stats.allocatedBytes(source) - 16 * 1024);
    assertThat(matching).isNotEmpty().containsOnly(true);
    long end = 0;
    long handed = 0;
    for (long[] piece : pieces) {
      assertThat(piece[0]).as("in ascending order, whole blocks").isGreaterThanOrEqualTo(end);
      assertThat(piece[0] % 4096).isZero();
      assertThat(piece[1] % 4096 == 0 || piece[0] + piece[1] == SIZE).isTrue();
      end = piece[0] + piece[1];
      handed += piece[1];
    }
    assertThat(handed).as("the data ranges, nothing more").isLessThanOrEqualTo(5 * MIB + 8192);
    assertThat(handed).isGreaterThanOrEqualTo(4 * MIB + 4096 + 100);
  }

  @Test
  void anExistingTargetIsLeftAlone() throws Exception {
    Files.writeString(copy, "mine");
    assertThatThrownBy(() -> SparseCopy.copy(source, copy, SparseCopy.Pieces.NONE))
        .isInstanceOf(FileAlreadyExistsException.class);
    assertThat(Files.readString(copy)).isEqualTo("mine");
  }

  @Test
  void anInterruptedCopyStopsBeforeItsNextPiece() {
    AtomicInteger pieces = new AtomicInteger();
    try {
      assertThatThrownBy(
              () ->
                  SparseCopy.copy(
                      source,
                      copy,
                      (offset, bytes) -> {
                        pieces.incrementAndGet();
                        Thread.currentThread().interrupt();
                      }))
          .isInstanceOfAny(InterruptedIOException.class, ClosedByInterruptException.class);
    } finally {
      Thread.interrupted();
    }
    assertThat(pieces.get()).isEqualTo(1);
  }

  @Test
  void aCopyThatOutlivesItsDeadlineEndsBeforeTheCallReturns() {
    CountDownLatch never = new CountDownLatch(1);
    AtomicInteger entered = new AtomicInteger();
    AtomicInteger left = new AtomicInteger();
    ImageFiles files = new ImageFiles(new ProcessCommandRunner());

    assertThatThrownBy(
            () ->
                files.copySparse(
                    source,
                    copy,
                    Duration.ofSeconds(3),
                    (offset, bytes) -> {
                      entered.incrementAndGet();
                      try {
                        never.await(); // a slow disk: only the deadline's interrupt ends it
                      } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                      }
                      left.incrementAndGet();
                    }))
        .isInstanceOfSatisfying(
            HostCommandException.class, e -> assertThat(e.isTimeout()).isTrue());
    assertThat(left.get()).as("the piece under way ended before the call returned").isEqualTo(1);
    assertThat(entered.get()).as("no piece after it").isEqualTo(1);
  }

  private static byte[] random(Random random, int length) {
    byte[] bytes = new byte[length];
    random.nextBytes(bytes);
    return bytes;
  }

  private static void write(FileChannel out, long at, byte[] bytes) throws Exception {
    ByteBuffer buffer = ByteBuffer.wrap(bytes);
    while (buffer.hasRemaining()) {
      out.write(buffer, at + buffer.position());
    }
  }
}
