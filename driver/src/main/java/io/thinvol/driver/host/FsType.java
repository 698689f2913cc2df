package io.thinvol.driver.host;

import java.util.List;
import java.util.Locale;
import java.util.Optional;

/** The filesystems the driver creates on mount volumes. */
public enum FsType {
  EXT4,
  XFS;

  public String id() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** Parses {@code ext4} or {@code xfs}; anything else is empty. */
  public static Optional<FsType> parse(String value) {
    for (FsType type : values()) {
      if (type.id().equals(value)) {
        return Optional.of(type);
      }
    }
    return Optional.empty();
  }

  /**
   * Mount options the driver always adds. xfs: clones and restored snapshots carry the source's
   * UUID, and without nouuid the second one cannot be mounted on the same node. ext4: images start
   * as zeros, so the kernel's background zeroing of inode tables is pointless, and on a loop device
   * it allocates the blocks of a thin image. ext4 also goes read-only at the first error
   * (errors=remount-ro, whatever the filesystem's own default says): when the data dir is full, the
   * writes of a volume fail, and a filesystem that carried on would lose them silently.
   */
  public List<String> requiredMountOptions() {
    return this == XFS ? List.of("nouuid") : List.of("noinit_itable", "errors=remount-ro");
  }

  /**
   * Whether its mkfs makes the new filesystem durable itself before it exits with success, so a
   * device fsync after it would only repeat the work. mke2fs closes the device through libext2fs,
   * which fsyncs it and fails the run (exit 1, "while writing out and closing file system") when
   * that fsync fails. mkfs.xfs 6.1 fsyncs too (seen with strace), but that a failed flush fails its
   * exit has not been shown for the xfsprogs versions in use, so the driver keeps its own.
   */
  public boolean mkfsSyncsDevice() {
    return this == EXT4;
  }
}
