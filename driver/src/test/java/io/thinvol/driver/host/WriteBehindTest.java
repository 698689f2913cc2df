package io.thinvol.driver.host;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import com.sun.jna.Library;
import com.sun.jna.Memory;
import com.sun.jna.Native;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A file written a stretch at a time is handed to the disk's writeback as the writer gets past each
 * stretch, and synced behind the writer, one sync at a time, each 64 MiB; seen through the kernel's
 * count of the file's dirty pages and pages under writeback (cachestat, Linux 6.5), on a real
 * filesystem (the temp dir's, as a data dir's).
 */
class WriteBehindTest {

  private static final int MIB = 1 << 20;
  private static final int PAGE = 4096;

  private Path root;
  private Path file;

  @BeforeEach
  void createFile() throws Exception {
    root = Files.createTempDirectory("thinvol-write-behind-");
    file = root.resolve("copy.img");
    Files.createFile(file);
  }

  @AfterEach
  void cleanUp() throws Exception {
    Files.deleteIfExists(file);
    Files.deleteIfExists(root);
  }

  @Test
  void whatTheWriterGotPastIsNoLongerDirty() throws Exception {
    try (FileChannel out = FileChannel.open(file, StandardOpenOption.WRITE);
        WriteBehind behind = WriteBehind.of(file)) {
      write(out, 0, 24 * MIB);
      assertThat(dirtyPages(0, 24 * MIB))
          .as("the kernel would start writing these back only after 30 s")
          .isGreaterThan(24 * MIB / PAGE / 2);
      behind.writtenTo(24 * MIB);
      assertThat(dirtyPages(0, 24 * MIB)).isLessThan(24 * MIB / PAGE / 2);

      write(out, 24 * MIB, 4 * MIB);
      behind.writtenTo(28 * MIB); // less than a stretch since the last: left for the final fsync
      assertThat(dirtyPages(24 * MIB, 4 * MIB)).isGreaterThan(4 * MIB / PAGE / 2);
    }
  }

  @Test
  void whatTheWriterGotFarPastIsSyncedBehindIt() throws Exception {
    WriteBehind behind = WriteBehind.of(file);
    try (FileChannel out = FileChannel.open(file, StandardOpenOption.WRITE)) {
      write(out, 0, 72 * MIB);
      behind.writtenTo(72 * MIB);
    } finally {
      behind.close(); // waits for the sync under way
    }
    assertThat(behind.stopped()).as("a writeback call or the sync failed").isFalse();
    assertThat(dirtyPages(0, 72 * MIB)).isZero();
    assertThat(pagesUnderWriteback(0, 72 * MIB)).isZero();
  }

  @Test
  void oneSyncAtATimeEach64MiBOnItsOwnDescriptor() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    List<Integer> syncs = new CopyOnWriteArrayList<>();
    ExecutorService threads = Executors.newCachedThreadPool();
    try {
      OpenFile own = OpenFile.open(file, Libc.O_WRONLY);
      try (WriteBehind behind =
          new WriteBehind(
              file,
              own,
              fd -> {
                syncs.add(fd);
                awaitQuietly(release);
              },
              threads)) {
        behind.writtenTo(32 * MIB);
        behind.writtenTo(63 * MIB);
        assertThat(syncs).as("less than 64 MiB written").isEmpty();
        behind.writtenTo(64 * MIB);
        assertThat(until(() -> syncs.size() == 1)).as("a sync began").isTrue();
        behind.writtenTo(200 * MIB);
        assertThat(syncs).as("no second sync while the first runs").hasSize(1);
        release.countDown();
        // the first ends; the writer's next step past 64 MiB from where it began starts another
        assertThat(
                until(
                    () -> {
                      behind.writtenTo(240 * MIB);
                      return syncs.size() == 2;
                    }))
            .isTrue();
        assertThat(syncs).containsOnly(own.fd());
      }
    } finally {
      threads.shutdownNow();
    }
  }

  @Test
  void aFileWithoutWritebackIsWrittenAsItIs() {
    // /dev/null has no pages to write back: sync_file_range fails (ESPIPE), the writer goes on
    try (WriteBehind behind = WriteBehind.of(Path.of("/dev/null"))) {
      assertThatCode(
              () -> {
                behind.writtenTo(16 * MIB);
                behind.writtenTo(32 * MIB);
              })
          .doesNotThrowAnyException();
    }
  }

  /** Whether {@code condition} held within 10 s, polled. */
  private static boolean until(BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + 10_000_000_000L;
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        return false;
      }
      Thread.sleep(5);
    }
    return true;
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void write(FileChannel out, long at, int length) throws Exception {
    byte[] bytes = new byte[length];
    new Random(at).nextBytes(bytes);
    ByteBuffer buffer = ByteBuffer.wrap(bytes);
    while (buffer.hasRemaining()) {
      out.write(buffer, at + buffer.position());
    }
  }

  /** The file's dirty pages in {@code [offset, offset + length)}, as cachestat(2) counts them. */
  private long dirtyPages(long offset, long length) throws Exception {
    return cachestat(offset, length, 8);
  }

  /** The file's pages under writeback in {@code [offset, offset + length)}. */
  private long pagesUnderWriteback(long offset, long length) throws Exception {
    return cachestat(offset, length, 16);
  }

  /** The count at {@code field} of cachestat(2)'s nr_cache, nr_dirty, nr_writeback, ... */
  private long cachestat(long offset, long length, int field) throws Exception {
    try (Memory range = new Memory(16);
        Memory stat = new Memory(40);
        OpenFile open = OpenFile.open(file, Libc.O_RDONLY)) {
      range.setLong(0, offset);
      range.setLong(8, length);
      stat.clear();
      int result = Syscalls.INSTANCE.syscall(CACHESTAT, open.fd(), range, stat, 0);
      assertThat(result).as("cachestat(2)").isZero();
      return stat.getLong(field);
    }
  }

  private static final long CACHESTAT = 451; // x86_64 and arm64 alike

  private interface Syscalls extends Library {
    Syscalls INSTANCE = Native.load("c", Syscalls.class);

    int syscall(long number, int fd, Memory range, Memory stat, int flags);
  }
}
