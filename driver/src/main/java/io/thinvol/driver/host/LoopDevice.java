package io.thinvol.driver.host;

import java.nio.file.Path;

/**
 * An attached loop device.
 *
 * @param path its node, e.g. {@code /dev/loop3}
 * @param majorMinor its kernel device number, e.g. {@code 7:3}
 * @param image the file behind it
 * @param readOnly attached with {@code --read-only}: the kernel refuses writes through it
 */
public record LoopDevice(Path path, String majorMinor, Path image, boolean readOnly) {

  /** The kernel name, e.g. {@code loop3}. */
  public String name() {
    return path.getFileName().toString();
  }
}
