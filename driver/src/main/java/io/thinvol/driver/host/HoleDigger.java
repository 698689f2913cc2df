package io.thinvol.driver.host;

import com.sun.jna.LastErrorException;
import com.sun.jna.Memory;
import com.sun.jna.NativeLong;
import java.nio.ByteBuffer;
import java.nio.file.Path;

/**
 * Punches holes where a file holds only zeros, as {@code fallocate --dig-holes} does: it visits the
 * file's data (SEEK_DATA, SEEK_HOLE), reads it a block run at a time and punches each all-zero run
 * (PUNCH_HOLE, KEEP_SIZE), so the file reads the same and occupies less.
 */
final class HoleDigger {

  private static final int CHUNK = 1 << 20;
  private static final int BLOCK = 4096;
  private static final ByteBuffer ZEROS = ByteBuffer.allocateDirect(CHUNK).asReadOnlyBuffer();

  private HoleDigger() {}

  static void dig(Path image) throws InterruptedException {
    Libc libc = Libc.INSTANCE;
    try (OpenFile file = OpenFile.open(image, Libc.O_RDWR);
        Memory buffer = new Memory(CHUNK)) {
      long end = libc.lseek(file.fd(), 0, 2 /* SEEK_END */);
      long position = 0;
      while (position < end) {
        long data = seek(file, position, Libc.SEEK_DATA);
        if (data < 0) {
          break; // nothing but a hole up to the end
        }
        long hole = seek(file, data, Libc.SEEK_HOLE);
        long at = data;
        while (at < hole) {
          if (Thread.interrupted()) {
            throw new InterruptedException(
                "digging holes in " + image + " stopped at its deadline");
          }
          int length = (int) Math.min(CHUNK, hole - at);
          long read = libc.pread(file.fd(), buffer, new NativeLong(length), at);
          if (read <= 0) {
            break; // the file shrank meanwhile
          }
          punchZeroBlocks(file, buffer.getByteBuffer(0, read), at);
          at += read;
        }
        position = hole;
      }
    } catch (LastErrorException e) {
      throw Errno.on(image, e);
    }
  }

  /**
   * Punches every run of whole zero blocks in {@code read}, which starts at file offset {@code at}.
   */
  private static void punchZeroBlocks(OpenFile file, ByteBuffer read, long at) {
    int runStart = -1;
    for (int offset = 0; offset < read.limit(); offset += BLOCK) {
      int length = Math.min(BLOCK, read.limit() - offset);
      boolean zero =
          length == BLOCK
              && read.slice(offset, length).mismatch(ZEROS.duplicate().limit(length)) == -1;
      if (zero && runStart < 0) {
        runStart = offset;
      } else if (!zero && runStart >= 0) {
        punch(file, at + runStart, offset - runStart);
        runStart = -1;
      }
    }
    if (runStart >= 0) {
      punch(file, at + runStart, read.limit() - runStart);
    }
  }

  private static long seek(OpenFile file, long from, int whence) {
    try {
      return Libc.INSTANCE.lseek(file.fd(), from, whence);
    } catch (LastErrorException e) {
      if (e.getErrorCode() == Errno.ENXIO) {
        return -1; // no data after from
      }
      throw e;
    }
  }

  private static void punch(OpenFile file, long offset, long length) {
    Libc.INSTANCE.fallocate(
        file.fd(), Libc.FALLOC_FL_PUNCH_HOLE | Libc.FALLOC_FL_KEEP_SIZE, offset, length);
  }

  /** Punches a hole of {@code length} bytes at {@code offset} into {@code path}. */
  static void punch(Path path, long offset, long length) {
    try (OpenFile file = OpenFile.open(path, Libc.O_RDWR)) {
      punch(file, offset, length);
    } catch (LastErrorException e) {
      throw Errno.on(path, e);
    }
  }
}
