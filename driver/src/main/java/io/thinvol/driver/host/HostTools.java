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
  private final FilesystemTools filesystemTools;

  public HostTools(CommandRunner runner) {
    this(runner, FilesystemTools.ofThisProcess());
  }

  public HostTools(CommandRunner runner, FilesystemTools filesystemTools) {
    this.runner = runner;
    this.filesystemTools = filesystemTools;
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

  /** Which filesystems this host can make and grow. */
  public FilesystemTools filesystemTools() {
    return filesystemTools;
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
