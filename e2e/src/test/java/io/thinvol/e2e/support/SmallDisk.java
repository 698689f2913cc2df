package io.thinvol.e2e.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A small ext4 filesystem loop-mounted on the host, as an admin mounts a data disk at a backend's
 * data dir ({@code dedicatedMount}): a disk the suite can fill in seconds. Its image sits next to
 * the mount point, both under {@code /var/lib/thinvol}.
 */
public final class SmallDisk {

  private final Path image;
  private final Path mountPoint;

  public SmallDisk(Path mountPoint) {
    this.mountPoint = mountPoint;
    this.image = mountPoint.resolveSibling(mountPoint.getFileName() + ".img");
  }

  public Path mountPoint() {
    return mountPoint;
  }

  /**
   * Makes and mounts a filesystem of {@code mib} MiB; no blocks reserved for root, so that the
   * space free for the driver and for the kernel's writes to images are the same.
   */
  public void create(int mib) {
    try {
      Files.createDirectories(mountPoint);
      Host.run("truncate", "--size=" + mib + "M", image.toString());
      Host.run("mkfs.ext4", "-q", "-F", "-m", "0", image.toString());
      Host.run("mount", "-o", "loop", image.toString(), mountPoint.toString());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public boolean mounted() {
    return !Host.mountsNaming(" " + mountPoint + " ").isEmpty();
  }

  /** The filesystem's size and the bytes free for anyone (statvfs, as the driver reads it). */
  public record Usage(long size, long available) {
    public double usedFraction() {
      return 1 - available / (double) size;
    }
  }

  public Usage usage() {
    try {
      FileStore store = Files.getFileStore(mountPoint);
      return new Usage(store.getTotalSpace(), store.getUsableSpace());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Unmounts the filesystem (its loop device goes with it: mount attached it with autoclear) and
   * removes the image and the mount point; nothing when it was never made.
   */
  public void remove() {
    if (mounted()) {
      Host.run("umount", mountPoint.toString());
    }
    try {
      Files.deleteIfExists(image);
      Files.deleteIfExists(mountPoint);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
