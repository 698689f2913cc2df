package io.thinvol.driver.host;

import java.nio.file.Path;

/**
 * An attached loop device.
 *
 * @param path its node, e.g. {@code /dev/loop3}
 * @param majorMinor its kernel device number, e.g. {@code 7:3}
 * @param backingFile the file behind it, by device and inode: what identifies it
 * @param backingName the kernel's path of that file, for messages only: it is relative to the mount
 *     namespace that attached the device, so after a container restart it names another path
 * @param readOnly attached with {@code --read-only}: the kernel refuses writes through it
 */
public record LoopDevice(
    Path path, String majorMinor, FileId backingFile, String backingName, boolean readOnly) {

  /** The kernel name, e.g. {@code loop3}. */
  public String name() {
    return path.getFileName().toString();
  }
}
