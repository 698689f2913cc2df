package io.thinvol.driver.host;

import com.sun.jna.LastErrorException;
import com.sun.jna.Memory;
import java.nio.file.Path;

/**
 * statfs(2) of the filesystem holding a path: what {@code stat --file-system} prints and the
 * mount's flags. Offsets are those of the 64-bit struct statfs (x86-64 and arm64 alike).
 */
record StatFs(
    long blockSize,
    long blocks,
    long freeBlocks,
    long availableBlocks,
    long inodes,
    long freeInodes,
    long flags) {

  private static final int SIZE = 120;
  private static final long ST_VALID = 0x20;

  static StatFs of(Path path) {
    try (Memory buffer = new Memory(SIZE)) {
      buffer.clear();
      Libc.INSTANCE.statfs(path.toString(), buffer);
      return new StatFs(
          buffer.getLong(72), // f_frsize, the unit of the block counts
          buffer.getLong(16),
          buffer.getLong(24),
          buffer.getLong(32),
          buffer.getLong(40),
          buffer.getLong(48),
          buffer.getLong(80) & ~ST_VALID);
    } catch (LastErrorException e) {
      throw Errno.on(path, e);
    }
  }

  long totalBytes() {
    return blocks * blockSize;
  }
}
