package io.thinvol.driver.host;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;

/**
 * How a loop device reaches its image file. {@code BUFFERED}: through the host's page cache, so
 * every block the volume's filesystem caches is cached a second time as the image's pages, outside
 * the pod's memory, and the pod's O_DIRECT I/O is not direct. {@code DIRECT}: the image is read and
 * written with O_DIRECT, the volume's data lives in one cache only (docs/benchmarks.md).
 */
public enum IoMode {
  DIRECT,
  BUFFERED;

  public String id() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** Parses {@code direct} or {@code buffered}; anything else is empty. */
  public static Optional<IoMode> parse(String value) {
    return Arrays.stream(values()).filter(mode -> mode.id().equals(value)).findFirst();
  }
}
