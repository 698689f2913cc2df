package io.thinvol.driver.host;

import com.sun.jna.NativeLong;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.IntConsumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Filesystem tools for ext4 and xfs: probe, create, grow and check run programs; sync, freeze and
 * thaw are system calls.
 */
public final class Filesystems {

  private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(30);
  private static final Duration LONG_TIMEOUT = Duration.ofMinutes(10);
  private static final int BLKID_NOTHING_FOUND = 2;

  // Whichever comes first: a full data dir freed within half a minute loses nothing.
  private static final String XFS_MAX_RETRIES = "600";
  private static final String XFS_RETRY_TIMEOUT_SECONDS = "30";

  private static final NativeLong FIFREEZE = new NativeLong(0xC0045877L);
  private static final NativeLong FITHAW = new NativeLong(0xC0045878L);

  private static final Path SYS_FS_XFS = Path.of("/sys/fs/xfs");
  private static final Pattern RELEASE = Pattern.compile("(\\d+)\\.(\\d+)");
  // the running kernel's: read once, not on every reclaim
  private static final boolean DIRECTORY_FSYNC_COMMITS_JOURNAL =
      directoryFsyncCommitsJournal(System.getProperty("os.version"));

  private final CommandRunner runner;
  private final XfsErrorSettings xfsErrors;

  public Filesystems(CommandRunner runner) {
    this.runner = runner;
    this.xfsErrors = new XfsErrorSettings(runner, SYS_FS_XFS);
  }

  /**
   * The filesystem (or other signature) type on a loop device; empty when it is blank. An image
   * that is all zeros where signatures live is blank without running blkid.
   */
  public Optional<String> probe(LoopDevice device) {
    if (BlankCheck.isBlank(device.path(), LoopSysfs.sizeBytes(device))) {
      return Optional.empty();
    }
    return probe(device.path());
  }

  /**
   * {@link #probe(LoopDevice)} for a device this call attached to {@code image}, with nothing
   * written through it yet: an image without data where signatures live is blank without reading
   * the device.
   */
  public Optional<String> probeAttachedNow(LoopDevice device, Path image) {
    if (BlankCheck.imageIsBlank(image, device, LoopSysfs.sizeBytes(device))) {
      return Optional.empty();
    }
    return probe(device);
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
    onDirectory("syncfs", mountPoint, timeout, fd -> Libc.INSTANCE.syncfs(fd));
  }

  /**
   * Commits the journal of the filesystem mounted at {@code mountPoint}, so that blocks freed by
   * recent deletes are free on disk and a trim can discard them: ext4 keeps them in use until the
   * transaction that freed them commits (every 5 s by default). For ext4 from Linux 5.10 this is an
   * fsync of the mount's directory, which commits the running transaction whichever file it
   * touched; unlike a syncfs it writes back no file's data and, with nothing to commit, sends the
   * device no flush (on a loop device an fsync of the image on the data dir). Elsewhere it is a
   * syncfs: before 5.10 that fsync waits only for the directory's own changes, and xfs frees a
   * deleted file's blocks in a background worker, which a syncfs waits for and an fsync does not.
   */
  public void commitJournal(FsType type, Path mountPoint, Duration timeout) {
    if (type != FsType.EXT4 || !DIRECTORY_FSYNC_COMMITS_JOURNAL) {
      sync(mountPoint, timeout);
      return;
    }
    onDirectory("fsync", mountPoint, timeout, fd -> Libc.INSTANCE.fsync(fd));
  }

  private void onDirectory(String call, Path directory, Duration timeout, IntConsumer syscall) {
    runner.call(
        timeout,
        HostCall.action(
            List.of(call, directory.toString()),
            () -> {
              try (OpenFile fs = OpenFile.directory(directory)) {
                syscall.accept(fs.fd());
              }
            }));
  }

  /** Whether the kernel of this release (5.10 or later) commits ext4's journal on a dir's fsync. */
  static boolean directoryFsyncCommitsJournal(String release) {
    Matcher version = RELEASE.matcher(release == null ? "" : release);
    if (!version.lookingAt()) {
      return false;
    }
    int major = Integer.parseInt(version.group(1));
    int minor = Integer.parseInt(version.group(2));
    return major > 5 || (major == 5 && minor >= 10);
  }

  /**
   * Bounds how long a mounted xfs retries failed metadata writeback. By default it retries ENOSPC
   * and EIO for ever, so when the data dir is full the volume's I/O and its unmount hang; bounded,
   * xfs shuts the filesystem down and every writer gets an error. Settings live in sysfs per
   * mounted device and must be set after each mount ({@link XfsErrorSettings}).
   */
  public void boundXfsErrorRetries(LoopDevice device) {
    xfsErrors.bound(device, XFS_MAX_RETRIES, XFS_RETRY_TIMEOUT_SECONDS);
  }

  /**
   * Freezes a mounted filesystem (FIFREEZE): dirty data is written out, then every write blocks
   * until {@link #thaw}. A freeze that takes effect after its timeout is thawed right away, so when
   * this throws the filesystem is not (or not for long) frozen by it.
   */
  public void freeze(Path mountPoint, Duration timeout) {
    runner.call(
        timeout,
        HostCall.action(List.of("FIFREEZE", mountPoint.toString()), () -> freezeIoctl(mountPoint))
            .meaning(Errno.EBUSY, "is frozen already (by another freeze)")
            .meaning(Errno.EOPNOTSUPP, "cannot be frozen: its filesystem does not support it")
            .undoneLateBy(done -> thawIoctl(mountPoint)));
  }

  /** Thaws a frozen filesystem; false when it was not frozen (or is gone). */
  public boolean thaw(Path mountPoint) {
    try {
      runner.call(
          PROBE_TIMEOUT,
          HostCall.action(List.of("FITHAW", mountPoint.toString()), () -> thawIoctl(mountPoint)));
      return true;
    } catch (HostCommandException e) {
      if (e.isTimeout()) {
        throw e;
      }
      return false;
    }
  }

  private static void freezeIoctl(Path mountPoint) {
    try (OpenFile fs = OpenFile.directory(mountPoint)) {
      Libc.INSTANCE.ioctl(fs.fd(), FIFREEZE, 0L);
    }
  }

  private static void thawIoctl(Path mountPoint) {
    try (OpenFile fs = OpenFile.directory(mountPoint)) {
      Libc.INSTANCE.ioctl(fs.fd(), FITHAW, 0L);
    }
  }
}
