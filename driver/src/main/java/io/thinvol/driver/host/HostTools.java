package io.thinvol.driver.host;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/** The host programs and kernel tables the driver uses, all running through one runner. */
public final class HostTools {

  private static final Duration COPY_TIMEOUT = Duration.ofHours(2);

  private final CommandRunner runner;
  private final LoopDevices loops;
  private final Mounts mounts;
  private final Filesystems filesystems;
  private final FileStats stats;
  private final Discards discards;

  public HostTools(CommandRunner runner) {
    this.runner = runner;
    this.loops = new LoopDevices(runner);
    this.mounts = new Mounts(runner);
    this.filesystems = new Filesystems(runner);
    this.stats = new FileStats(runner);
    this.discards = new Discards(runner);
  }

  public LoopDevices loops() {
    return loops;
  }

  public Mounts mounts() {
    return mounts;
  }

  public Filesystems filesystems() {
    return filesystems;
  }

  public FileStats stats() {
    return stats;
  }

  public Discards discards() {
    return discards;
  }

  public MountTable mountTable() {
    return MountTable.read();
  }

  /** Copies an image keeping holes as holes, sharing extents where the filesystem can. */
  public void copySparse(Path from, Path to) {
    runner.run(
        COPY_TIMEOUT,
        List.of("cp", "--sparse=always", "--reflink=auto", "--", from.toString(), to.toString()));
  }
}
