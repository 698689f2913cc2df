package io.thinvol.driver.host;

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

  /** Mount options the driver always adds for this filesystem. */
  public java.util.List<String> requiredMountOptions() {
    // Clones and restored snapshots of an xfs volume carry the source's UUID; without nouuid the
    // second one cannot be mounted on the same node.
    return this == XFS ? java.util.List.of("nouuid") : java.util.List.of();
  }
}
