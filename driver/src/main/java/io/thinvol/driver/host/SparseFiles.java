package io.thinvol.driver.host;

import com.sun.jna.LastErrorException;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Path;

/** Sets the size of image files, and punches holes into them, without writing their data. */
public final class SparseFiles {

  private SparseFiles() {}

  /** The file's filesystem does not allow a file of that size (EFBIG: 16 TiB on ext4). */
  public static final class TooLargeException extends IOException {
    TooLargeException(String message) {
      super(message);
    }
  }

  /**
   * Grows {@code file} (created when missing) to {@code size} bytes, never shrinks it, and syncs it
   * before returning.
   */
  public static void extend(Path file, long size) throws IOException {
    try (RandomAccessFile handle = new RandomAccessFile(file.toFile(), "rw")) {
      if (handle.length() < size) {
        truncate(file, size);
      }
      handle.getFD().sync();
    }
  }

  /**
   * Frees {@code length} bytes of {@code file} at {@code offset}: they read as zeros after, and the
   * file keeps its size.
   */
  public static void punch(Path file, long offset, long length) {
    HoleDigger.punch(file, offset, length);
  }

  private static void truncate(Path file, long size) throws IOException {
    try {
      Libc.INSTANCE.truncate(file.toString(), size);
    } catch (LastErrorException e) {
      if (e.getErrorCode() == Errno.EFBIG) {
        throw new TooLargeException(
            "the filesystem holding " + file + " does not allow a file of " + size + " bytes");
      }
      throw new IOException("cannot set the size of " + file + " to " + size + ": " + e, e);
    }
  }
}
