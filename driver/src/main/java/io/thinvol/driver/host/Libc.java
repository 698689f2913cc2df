package io.thinvol.driver.host;

import com.sun.jna.LastErrorException;
import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.NativeLong;
import com.sun.jna.Pointer;

/**
 * The few C library calls the JDK does not offer with their errno: an ioctl on a device node or a
 * file, a truncate whose EFBIG must be told apart from other failures, and the lseek whence values
 * that find a sparse file's data and holes. Only the host layer calls it.
 */
interface Libc extends Library {

  Libc INSTANCE = Native.load("c", Libc.class);

  int O_RDONLY = 0;
  int O_CLOEXEC = 0x80000;

  int ENXIO = 6;
  int EFBIG = 27;

  int SEEK_DATA = 3;
  int SEEK_HOLE = 4;

  int open(String path, int flags) throws LastErrorException;

  int close(int fd) throws LastErrorException;

  int ioctl(int fd, NativeLong request, Pointer argument) throws LastErrorException;

  int truncate(String path, long length) throws LastErrorException;

  long lseek(int fd, long offset, int whence) throws LastErrorException;
}
