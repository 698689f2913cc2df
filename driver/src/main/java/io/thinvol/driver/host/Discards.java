package io.thinvol.driver.host;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * Giving freed blocks back to the data dir. Both ways only ever remove blocks whose content nobody
 * needs: a trim (FITRIM) asks a mounted filesystem to discard its free blocks (the loop device
 * turns discards into holes in the image), and digging holes replaces all-zero ranges of an image
 * with holes, which read back as the same zeros.
 */
public final class Discards {

  private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(30);

  private final CommandRunner runner;

  public Discards(CommandRunner runner) {
    this.runner = runner;
  }

  /**
   * Discards the free blocks of the filesystem mounted at {@code mountPoint}; returns the bytes the
   * filesystem discarded. The trim goes a range at a time, so a deadline stops it between ranges.
   */
  public long trim(Path mountPoint, Duration timeout) {
    return runner.call(
        timeout,
        HostCall.of(List.of("FITRIM", mountPoint.toString()), () -> Trim.run(mountPoint))
            .meaning(
                Errno.EOPNOTSUPP,
                "does not support discards: its filesystem or device cannot free blocks")
            .stoppedAtDeadline());
  }

  /**
   * Turns every all-zero range of {@code image} into a hole; its content is unchanged. Nothing may
   * write to the image meanwhile (it is attached nowhere): a range read as zeros is punched after.
   */
  public void digHoles(Path image, Duration timeout) {
    runner.call(
        timeout,
        HostCall.action(List.of("dig-holes", image.toString()), () -> HoleDigger.dig(image))
            .stoppedAtDeadline());
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
      runner.call(
          PROBE_TIMEOUT,
          HostCall.action(
              List.of("PUNCH_HOLE", probe.toString()), () -> HoleDigger.punch(probe, 0, 8192)));
      return true;
    } catch (IOException | HostCommandException e) {
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
