package io.thinvol.driver.host;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Figures Java's file APIs do not expose: statfs inodes and a file's allocated blocks. */
public final class FileStats {

  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  private final CommandRunner runner;

  public FileStats(CommandRunner runner) {
    this.runner = runner;
  }

  /** statfs of the filesystem holding {@code path}. */
  public FsUsage filesystem(Path path) {
    // %S fundamental block size, %b total blocks, %f free, %a available, %c inodes, %d free inodes
    String out =
        runner
            .run(
                TIMEOUT,
                List.of("stat", "--file-system", "--format", "%S %b %f %a %c %d", path.toString()))
            .stdout()
            .strip();
    String[] f = out.split("\\s+");
    long block = Long.parseLong(f[0]);
    long total = Long.parseLong(f[1]) * block;
    long free = Long.parseLong(f[2]) * block;
    long available = Long.parseLong(f[3]) * block;
    long inodes = Long.parseLong(f[4]);
    long freeInodes = Long.parseLong(f[5]);
    return new FsUsage(total, available, total - free, inodes, freeInodes, inodes - freeInodes);
  }

  /**
   * Bytes each file really occupies on disk ({@code st_blocks * 512}); a file that does not exist
   * occupies nothing.
   */
  public Map<Path, Long> allocatedBytes(List<Path> files) {
    Map<Path, Long> sizes = new HashMap<>();
    if (files.isEmpty()) {
      return sizes;
    }
    List<String> argv = new ArrayList<>(List.of("stat", "--format", "%b %B %n", "--"));
    files.forEach(file -> argv.add(file.toString()));
    CommandResult result = runner.runAllowingFailure(TIMEOUT, argv);
    for (String line : result.stdout().split("\n")) {
      String[] f = line.strip().split(" ", 3);
      if (f.length == 3) {
        sizes.put(Path.of(f[2]), Long.parseLong(f[0]) * Long.parseLong(f[1]));
      }
    }
    if (!result.succeeded()
        && sizes.isEmpty()
        && files.stream().anyMatch(java.nio.file.Files::exists)) {
      throw new HostCommandException(result.describe(), result);
    }
    return sizes;
  }

  /** Bytes one file occupies on disk; 0 when it does not exist. */
  public long allocatedBytes(Path file) {
    return allocatedBytes(List.of(file)).getOrDefault(file, 0L);
  }
}
