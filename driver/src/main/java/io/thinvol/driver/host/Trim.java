package io.thinvol.driver.host;

import com.sun.jna.Memory;
import com.sun.jna.NativeLong;
import java.nio.file.Path;

/** FITRIM over a mounted filesystem, one range at a time. */
final class Trim {

  private static final NativeLong FITRIM = new NativeLong(0xC0185879L);

  /** Short enough that a deadline stops a trim soon, long enough for one call on most volumes. */
  static final long RANGE_BYTES = 16L << 30;

  private Trim() {}

  /** Returns the bytes the filesystem discarded; stops early when its thread is interrupted. */
  static long run(Path mountPoint) throws InterruptedException {
    long size = StatFs.of(mountPoint).totalBytes();
    long trimmed = 0;
    // struct fstrim_range { u64 start, len, minlen }; the kernel writes the trimmed bytes to len
    try (OpenFile fs = OpenFile.directory(mountPoint);
        Memory range = new Memory(24)) {
      for (long start = 0; start < size; start += RANGE_BYTES) {
        if (Thread.interrupted()) {
          throw new InterruptedException("trim of " + mountPoint + " stopped at its deadline");
        }
        boolean last = start + RANGE_BYTES >= size;
        range.setLong(0, start);
        // the last range runs to the end: the filesystem may be larger than statfs counts
        range.setLong(8, last ? -1L : RANGE_BYTES);
        range.setLong(16, 0);
        Libc.INSTANCE.ioctl(fs.fd(), FITRIM, range);
        trimmed += range.getLong(8);
      }
    }
    return trimmed;
  }
}
