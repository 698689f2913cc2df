package io.thinvol.driver.host;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * Giving freed blocks back to the data dir. Both ways only ever remove blocks whose content nobody
 * needs: {@code fstrim} asks a mounted filesystem to discard its free blocks (the loop device turns
 * discards into holes in the image), and {@code fallocate --dig-holes} replaces all-zero ranges of
 * an image with holes, which read back as the same zeros.
 */
public final class Discards {

  private final CommandRunner runner;

  public Discards(CommandRunner runner) {
    this.runner = runner;
  }

  /** Discards the free blocks of the filesystem mounted at {@code mountPoint}. */
  public void trim(Path mountPoint, Duration timeout) {
    runner.run(timeout, List.of("fstrim", mountPoint.toString()));
  }

  /** Turns every all-zero range of {@code image} into a hole; its content is unchanged. */
  public void digHoles(Path image, Duration timeout) {
    runner.run(timeout, List.of("fallocate", "--dig-holes", image.toString()));
  }

  /**
   * Whether the filesystem holding {@code directory} can punch holes into files (tried on a scratch
   * file). Without it neither a trim through a loop device nor digging holes frees anything.
   */
  public boolean canPunchHoles(Path directory) {
    Path probe = directory.resolve(".punch-probe");
    try {
      try (RandomAccessFile file = new RandomAccessFile(probe.toFile(), "rw")) {
        file.write(new byte[16 * 1024]);
        file.getFD().sync();
      }
      return runner
          .runAllowingFailure(
              Duration.ofSeconds(30),
              List.of(
                  "fallocate",
                  "--punch-hole",
                  "--offset",
                  "0",
                  "--length",
                  "8192",
                  probe.toString()))
          .succeeded();
    } catch (IOException e) {
      return false;
    } finally {
      try {
        Files.deleteIfExists(probe);
      } catch (IOException ignored) {
        // a leftover probe file is harmless and replaced next time
      }
    }
  }
}
