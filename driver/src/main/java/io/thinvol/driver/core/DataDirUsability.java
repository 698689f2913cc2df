package io.thinvol.driver.core;

import io.thinvol.driver.host.MountTable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Supplier;

/**
 * Whether images can be written to the data dir at all: it is a writable directory and, when the
 * data dir is declared a dedicated mount, a filesystem is mounted there. Without that mount the
 * directory belongs to the node's root filesystem: images written there would fill it (and the
 * kubelet starts evicting pods) and vanish under the disk once it is mounted.
 */
public final class DataDirUsability {

  /**
   * Why the data dir cannot take images.
   *
   * @param reason CamelCase, for the Pod condition
   */
  public record Problem(String reason, String message) {}

  private final Path dataDir;
  private final boolean dedicatedMount;
  private final Supplier<MountTable> mounts;

  public DataDirUsability(Path dataDir, boolean dedicatedMount) {
    this(dataDir, dedicatedMount, MountTable::read);
  }

  DataDirUsability(Path dataDir, boolean dedicatedMount, Supplier<MountTable> mounts) {
    this.dataDir = dataDir.toAbsolutePath().normalize();
    this.dedicatedMount = dedicatedMount;
    this.mounts = mounts;
  }

  /** What keeps images out of the data dir now, or null when nothing does. */
  public Problem problem() {
    if (dedicatedMount && !mountedHere()) {
      return new Problem(
          "DedicatedMountMissing",
          "the data dir "
              + dataDir
              + " is meant to be a dedicated mount (spec.sparseFile.dedicatedMount) but no"
              + " filesystem is mounted there; the driver writes nothing to it until one is:"
              + " mount the data disk at "
              + dataDir
              + " on the node");
    }
    if (!Files.isDirectory(dataDir)) {
      return new Problem(
          "NotADirectory", "the data dir " + dataDir + " is missing or not a directory");
    }
    if (!Files.isWritable(dataDir)) {
      return new Problem(
          "ReadOnly",
          "the data dir "
              + dataDir
              + " is not writable (a read-only filesystem?): volumes on this node cannot take"
              + " writes and no volume can be created; remount it read-write");
    }
    return null;
  }

  /** Whether a missing dedicated mount is what keeps images out. */
  public boolean awaitsMount() {
    return dedicatedMount && !mountedHere();
  }

  /**
   * A filesystem's root is mounted at the data dir. In a container the data dir is always a mount
   * (the kubelet bind-mounts the hostPath), but of a directory of the node's filesystem; a disk
   * mounted there on the node reaches the container through HostToContainer propagation as a mount
   * of that disk's root.
   */
  private boolean mountedHere() {
    return mounts.get().at(dataDir).filter(m -> m.root().equals("/")).isPresent();
  }
}
