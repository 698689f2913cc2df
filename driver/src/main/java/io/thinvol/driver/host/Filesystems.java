package io.thinvol.driver.host;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/** Filesystem tools for ext4 and xfs: probe, create, grow, check, freeze. */
public final class Filesystems {

  private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(30);
  private static final Duration LONG_TIMEOUT = Duration.ofMinutes(10);
  private static final int BLKID_NOTHING_FOUND = 2;

  private final CommandRunner runner;

  public Filesystems(CommandRunner runner) {
    this.runner = runner;
  }

  /**
   * The filesystem (or other signature) type on a loop device; empty when it is blank. An image
   * that is all zeros where signatures live is blank without running blkid.
   */
  public Optional<String> probe(LoopDevice device) {
    if (BlankCheck.isBlank(device.path(), LoopDevices.sizeOf(device))) {
      return Optional.empty();
    }
    return probe(device.path());
  }

  /** The filesystem (or other signature) type on {@code device}; empty when it is blank. */
  public Optional<String> probe(Path device) {
    CommandResult result =
        runner.runAllowingFailure(
            PROBE_TIMEOUT,
            List.of(
                "blkid", "--probe", "--output", "value", "--match-tag", "TYPE", device.toString()));
    if (result.exitCode() == BLKID_NOTHING_FOUND) {
      return Optional.empty();
    }
    if (!result.succeeded()) {
      throw new HostCommandException(result.describe(), result);
    }
    String type = result.stdout().strip();
    return type.isEmpty() ? Optional.empty() : Optional.of(type);
  }

  /**
   * Creates a filesystem on a blank device. The image is a fresh sparse file that reads as zeros,
   * so neither a discard pass nor zeroing the ext4 journal and inode tables is needed; zeroing
   * would allocate the blocks (about 64 MiB of every 10 GiB volume) and defeat thin volumes.
   */
  public void format(Path device, FsType type) {
    List<String> argv =
        switch (type) {
          case EXT4 ->
              List.of(
                  "mkfs.ext4",
                  "-q",
                  "-F",
                  "-m",
                  "0",
                  "-E",
                  "nodiscard,lazy_itable_init=1,lazy_journal_init=1",
                  device.toString());
          case XFS -> List.of("mkfs.xfs", "-q", "-f", "-K", device.toString());
        };
    runner.run(LONG_TIMEOUT, argv);
  }

  /**
   * Grows an unmounted ext4 filesystem to fill its device. The check first is what resize2fs
   * demands offline; exit code 1 means it fixed something harmless.
   */
  public void growExt4Offline(Path device) {
    CommandResult check =
        runner.runAllowingFailure(LONG_TIMEOUT, List.of("e2fsck", "-f", "-p", device.toString()));
    if (check.exitCode() > 1) {
      throw new HostCommandException(check.describe(), check);
    }
    runner.run(LONG_TIMEOUT, List.of("resize2fs", device.toString()));
  }

  /** Grows a mounted filesystem to fill its (already grown) device. */
  public void growOnline(FsType type, Path device, Path mountPoint) {
    List<String> argv =
        switch (type) {
          case EXT4 -> List.of("resize2fs", device.toString());
          case XFS -> List.of("xfs_growfs", "-d", mountPoint.toString());
        };
    runner.run(LONG_TIMEOUT, argv);
  }

  /** Writes out the filesystem's dirty data and commits its journal (syncfs). */
  public void sync(Path mountPoint, Duration timeout) {
    runner.run(timeout, List.of("sync", "--file-system", mountPoint.toString()));
  }

  public void freeze(Path mountPoint) {
    runner.run(PROBE_TIMEOUT, List.of("fsfreeze", "--freeze", mountPoint.toString()));
  }

  public void unfreeze(Path mountPoint) {
    runner.run(PROBE_TIMEOUT, List.of("fsfreeze", "--unfreeze", mountPoint.toString()));
  }
}
