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
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A file written a stretch at a time is handed to the disk's writeback as the writer gets past each
 * stretch, seen through the kernel's count of the file's dirty pages (cachestat, Linux 6.5), on a
 * real filesystem (the temp dir's, as a data dir's).
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
    try (Memory range = new Memory(16);
        Memory stat = new Memory(40);
        OpenFile open = OpenFile.open(file, Libc.O_RDONLY)) {
      range.setLong(0, offset);
      range.setLong(8, length);
      stat.clear();
      int result = Syscalls.INSTANCE.syscall(CACHESTAT, open.fd(), range, stat, 0);
      assertThat(result).as("cachestat(2)").isZero();
      return stat.getLong(8); // nr_cache, nr_dirty, nr_writeback, ...
    }
  }

  private static final long CACHESTAT = 451; // x86_64 and arm64 alike

  private interface Syscalls extends Library {
    Syscalls INSTANCE = Native.load("c", Syscalls.class);

    int syscall(long number, int fd, Memory range, Memory stat, int flags);
  }
}
