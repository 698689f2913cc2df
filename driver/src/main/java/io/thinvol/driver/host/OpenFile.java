package io.thinvol.driver.host;

import com.sun.jna.LastErrorException;
import java.nio.file.Path;

/** A file descriptor for system calls, closed by try-with-resources. */
final class OpenFile implements AutoCloseable {

  private final int fd;

  private OpenFile(int fd) {
    this.fd = fd;
  }

  /** Opens {@code path}; a failure names the path (see {@link Errno#on}). */
  static OpenFile open(Path path, int flags) {
    return open(path, flags, 0);
  }

  static OpenFile open(Path path, int flags, int mode) {
    try {
      return new OpenFile(Libc.INSTANCE.open(path.toString(), flags | Libc.O_CLOEXEC, mode));
    } catch (LastErrorException e) {
      throw Errno.on(path, e);
    }
  }

  /** A directory or mount point, for the calls that act on its filesystem. */
  static OpenFile directory(Path path) {
    return open(path, Libc.O_RDONLY | Libc.O_DIRECTORY);
  }

  int fd() {
    return fd;
  }

  @Override
  public void close() {
    try {
      Libc.INSTANCE.close(fd);
    } catch (LastErrorException e) {
      // nothing was written through it that a failed close could lose
    }
  }
}
