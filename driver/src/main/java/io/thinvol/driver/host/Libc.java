package io.thinvol.driver.host;

import com.sun.jna.LastErrorException;
import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.NativeLong;
import com.sun.jna.Pointer;

/**
 * The C library calls the host layer makes itself instead of running a program: loop device and
 * filesystem ioctls, mount and umount, syncs, stat, fallocate and lseek, each with its errno. Only
 * the host layer calls it, and only through {@link SystemCalls}, which gives every call a deadline.
 */
interface Libc extends Library {

  Libc INSTANCE = Native.load("c", Libc.class);

  int O_RDONLY = 0;
  int O_WRONLY = 1;
  int O_RDWR = 2;
  int O_CREAT = 0x40;
  int O_EXCL = 0x80;
  int O_DIRECTORY = 0x10000;
  int O_CLOEXEC = 0x80000;

  int SEEK_DATA = 3;
  int SEEK_HOLE = 4;

  int FALLOC_FL_KEEP_SIZE = 0x01;
  int FALLOC_FL_PUNCH_HOLE = 0x02;

  int SYNC_FILE_RANGE_WRITE = 0x02;

  int open(String path, int flags) throws LastErrorException;

  int open(String path, int flags, int mode) throws LastErrorException;

  int close(int fd) throws LastErrorException;

  int ioctl(int fd, NativeLong request, Pointer argument) throws LastErrorException;

  int ioctl(int fd, NativeLong request, long argument) throws LastErrorException;

  int truncate(String path, long length) throws LastErrorException;

  int mount(String source, String target, String fsType, NativeLong flags, String data)
      throws LastErrorException;

  int umount2(String target, int flags) throws LastErrorException;

  int fsync(int fd) throws LastErrorException;

  int fdatasync(int fd) throws LastErrorException;

  int syncfs(int fd) throws LastErrorException;

  int fallocate(int fd, int mode, long offset, long length) throws LastErrorException;

  int sync_file_range(int fd, long offset, long length, int flags) throws LastErrorException;

  long lseek(int fd, long offset, int whence) throws LastErrorException;

  long pread(int fd, Pointer buffer, NativeLong count, long offset) throws LastErrorException;

  int stat(String path, Pointer buffer) throws LastErrorException;

  int statfs(String path, Pointer buffer) throws LastErrorException;
}
