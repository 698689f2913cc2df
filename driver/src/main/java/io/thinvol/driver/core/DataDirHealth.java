package io.thinvol.driver.core;

import io.thinvol.driver.host.HostTools;
import java.io.File;
import java.nio.file.Path;

/**
 * Whether the data dir can take images ({@link DataDirUsability}) and its filesystem still has room
 * for them to grow. A volume's image is sparse: when that filesystem is full, every write to a part
 * of a volume not yet allocated fails, however empty the volume looks from inside. Read with statfs
 * on every call (one system call, no process).
 */
public final class DataDirHealth {

  // "Full" leaves a margin: ext4 keeps up to 2% (at most 16 MiB) that statfs counts as available
  // but no write can take, and a volume's writes arrive faster than anyone can react. 3% of the
  // filesystem, at most 256 MiB.
  private static final long MAX_MARGIN = 256L << 20;
  private static final int MARGIN_PERCENT = 3;

  private final Path root;
  private final HostTools host;
  private final DataDirUsability usability;

  /** For a data dir that is not declared a dedicated mount. */
  public DataDirHealth(Path root, HostTools host) {
    this(root, host, new DataDirUsability(root, false));
  }

  public DataDirHealth(Path root, HostTools host, DataDirUsability usability) {
    this.root = root;
    this.host = host;
    this.usability = usability;
  }

  /**
   * The data dir at one moment.
   *
   * @param unusable why images cannot be written there at all, or null
   */
  public record State(
      Path root, long availableBytes, long totalBytes, DataDirUsability.Problem unusable) {

    public boolean full() {
      return totalBytes > 0
          && availableBytes < Math.min(totalBytes / 100 * MARGIN_PERCENT, MAX_MARGIN);
    }

    /** What a person should know and do, or null when the data dir is usable and has room. */
    public String problem() {
      if (unusable != null) {
        return unusable.message();
      }
      if (!full()) {
        return null;
      }
      return String.format(
          "the data dir's filesystem (%s) is full, %d of %d bytes available: writes to parts of"
              + " volumes not yet allocated fail; delete snapshots or volumes, or grow that"
              + " filesystem",
          root, availableBytes, totalBytes);
    }
  }

  public State state() {
    File dir = root.toFile();
    // Available rather than free: root's reserved blocks are no room to promise anyone.
    return new State(root, dir.getUsableSpace(), dir.getTotalSpace(), usability.problem());
  }

  /**
   * Why the image cannot take the writes its volume promises, or null: the data dir cannot take
   * writes at all, or it is full and the image still has unallocated parts (a fully allocated image
   * is unaffected by a full one).
   */
  public String imageProblem(Path image, long sizeBytes) {
    State state = state();
    if (state.unusable() != null) {
      return "the volume's image cannot take writes: " + state.unusable().message();
    }
    if (!state.full() || host.stats().allocatedBytes(image) >= sizeBytes) {
      return null;
    }
    return "the volume's image cannot grow: " + state.problem();
  }
}
