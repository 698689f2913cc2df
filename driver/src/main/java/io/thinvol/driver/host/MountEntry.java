package io.thinvol.driver.host;

import java.nio.file.Path;
import java.util.Set;

/**
 * One line of {@code /proc/self/mountinfo}. Several lines can name one mount point: mount
 * propagation copies a mount into every peer of its parent, and a copy under a mount that covers it
 * (a bind of a directory onto itself) is listed at the same path though no path reaches it.
 *
 * @param id the mount's id, unique in its namespace
 * @param parentId the id of the mount it is mounted on (its own id's absence marks the root)
 * @param majorMinor device number of the mounted filesystem (e.g. {@code 7:3})
 * @param root the path inside that filesystem which is mounted (a bind of a device node shows
 *     {@code /loop3} here)
 * @param mountPoint where it is mounted
 * @param mountOptions per-mount options ({@code ro}, {@code nosuid}, ...)
 * @param superOptions per-superblock options; {@code ro} here means the filesystem itself went
 *     read-only, for example after an error
 */
public record MountEntry(
    int id,
    int parentId,
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
