package io.thinvol.driver.host;

import java.nio.file.Path;
import java.util.Set;

/**
 * One line of {@code /proc/self/mountinfo}.
 *
 * @param majorMinor device number of the mounted filesystem (e.g. {@code 7:3})
 * @param root the path inside that filesystem which is mounted (a bind of a device node shows
 *     {@code /loop3} here)
 * @param mountPoint where it is mounted
 * @param mountOptions per-mount options ({@code ro}, {@code nosuid}, ...)
 * @param superOptions per-superblock options; {@code ro} here means the filesystem itself went
 *     read-only, for example after an error
 */
public record MountEntry(
    String majorMinor,
    String root,
    Path mountPoint,
    Set<String> mountOptions,
    String fsType,
    String source,
    Set<String> superOptions) {

  public boolean readOnly() {
    return mountOptions.contains("ro");
  }

  public boolean filesystemReadOnly() {
    return superOptions.contains("ro");
  }
}
