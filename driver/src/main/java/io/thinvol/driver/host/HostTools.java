package io.thinvol.driver.host;

/** The host programs and kernel tables the driver uses, all running through one runner. */
public final class HostTools {

  private final CommandRunner runner;
  private final LoopDevices loops;
  private final Mounts mounts;
  private final Filesystems filesystems;
  private final FileStats stats;
  private final Discards discards;
  private final ImageFiles files;

  public HostTools(CommandRunner runner) {
    this.runner = runner;
    this.loops = new LoopDevices(runner);
    this.mounts = new Mounts(runner);
    this.filesystems = new Filesystems(runner);
    this.stats = new FileStats(runner);
    this.discards = new Discards(runner);
    this.files = new ImageFiles(runner);
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

  public ImageFiles files() {
    return files;
  }
}
