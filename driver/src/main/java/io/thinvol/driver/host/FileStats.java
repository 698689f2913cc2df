package io.thinvol.driver.host;

import com.sun.jna.LastErrorException;
import com.sun.jna.Memory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Figures Java's file APIs do not expose: statfs inodes and a file's allocated blocks. */
public final class FileStats {

  private static final Duration TIMEOUT = Duration.ofSeconds(30);
  // struct stat (x86-64 and arm64 alike): st_blocks, in 512-byte units, at offset 64 of 144 bytes
  private static final int STAT_SIZE = 144;
  private static final int ST_BLOCKS = 64;

  private final CommandRunner runner;

  public FileStats(CommandRunner runner) {
    this.runner = runner;
  }

  /** statfs of the filesystem holding {@code path}. */
  public FsUsage filesystem(Path path) {
    StatFs fs =
        runner.call(
            TIMEOUT, HostCall.of(List.of("statfs", path.toString()), () -> StatFs.of(path)));
    long block = fs.blockSize();
    long total = fs.blocks() * block;
    long free = fs.freeBlocks() * block;
    return new FsUsage(
        total,
        fs.availableBlocks() * block,
        total - free,
        fs.inodes(),
        fs.freeInodes(),
        fs.inodes() - fs.freeInodes());
  }

  /**
   * Bytes each file really occupies on disk ({@code st_blocks * 512}); a file that does not exist
   * occupies nothing.
   */
  public Map<Path, Long> allocatedBytes(List<Path> files) {
    if (files.isEmpty()) {
      return new HashMap<>();
    }
    List<String> shown = new ArrayList<>(List.of("stat"));
    files.forEach(file -> shown.add(file.toString()));
    return runner.call(TIMEOUT, HostCall.of(shown, () -> allocated(files)));
  }

  /** Bytes one file occupies on disk; 0 when it does not exist. */
  public long allocatedBytes(Path file) {
    return allocatedBytes(List.of(file)).getOrDefault(file, 0L);
  }

  private static Map<Path, Long> allocated(List<Path> files) {
    Map<Path, Long> sizes = new HashMap<>();
    try (Memory stat = new Memory(STAT_SIZE)) {
      for (Path file : files) {
        try {
          Libc.INSTANCE.stat(file.toString(), stat);
          sizes.put(file, stat.getLong(ST_BLOCKS) * 512);
        } catch (LastErrorException e) {
          if (e.getErrorCode() != Errno.ENOENT) {
            throw Errno.on(file, e);
          }
        }
      }
    }
    return sizes;
  }
}
