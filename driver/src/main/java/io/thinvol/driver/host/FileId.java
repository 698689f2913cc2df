package io.thinvol.driver.host;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/**
 * What identifies a file whatever path it is reached by: the device of its filesystem and its
 * inode. A bind mount, a container's mount namespace or a namespace that is gone all change the
 * path a loop device reports for its backing file, never this.
 */
public record FileId(int major, int minor, long inode) {

  /** The identity of the file at {@code path}, or empty when there is none. */
  public static Optional<FileId> of(Path path) {
    try {
      // one lstat for both (each getAttribute would make its own)
      Map<String, Object> id =
          Files.readAttributes(path, "unix:dev,ino", LinkOption.NOFOLLOW_LINKS);
      return Optional.of(fromDeviceNumber((Long) id.get("dev"), (Long) id.get("ino")));
    } catch (NoSuchFileException e) {
      return Optional.empty();
    } catch (IOException e) {
      throw new HostCommandException("cannot stat " + path, e);
    }
  }

  /**
   * Splits a device number. glibc's {@code dev_t} (what stat returns) and the kernel's {@code
   * new_encode_dev}/{@code huge_encode_dev} (what LOOP_GET_STATUS64 returns in {@code lo_device})
   * put the low 8 bits of the minor at the bottom, 12 bits of major above them and the rest of the
   * minor above that; glibc adds more major bits above bit 32, which the kernel never sets.
   */
  static FileId fromDeviceNumber(long dev, long inode) {
    int major = (int) (((dev >>> 8) & 0xfffL) | ((dev >>> 32) & 0xfffff000L));
    int minor = (int) ((dev & 0xffL) | ((dev >>> 12) & 0xffffff00L));
    return new FileId(major, minor, inode);
  }

  @Override
  public String toString() {
    return major + ":" + minor + " inode " + inode;
  }
}
