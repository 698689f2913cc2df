package io.thinvol.driver.host;

import com.sun.jna.LastErrorException;
import com.sun.jna.Memory;
import com.sun.jna.NativeLong;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Asks the kernel which file backs a loop device (LOOP_GET_STATUS64): its device and inode as the
 * kernel holds them, valid in every mount namespace, unlike {@code loop/backing_file} in sysfs,
 * which is a path as seen from the namespace that attached the device (or from the detached mount
 * once that namespace is gone).
 */
final class LoopStatus {

  private static final NativeLong LOOP_GET_STATUS64 = new NativeLong(0x4C05);
  // struct loop_info64: u64 lo_device, lo_inode, lo_rdevice, lo_offset, lo_sizelimit;
  // u32 lo_number, lo_encrypt_type, lo_encrypt_key_size, lo_flags; names, key, u64 lo_init[2].
  private static final int SIZE = 232;
  private static final int INODE_OFFSET = 8;

  private LoopStatus() {}

  /** The backing file of the device node, or empty when nothing is attached to it. */
  static Optional<FileId> backingFile(Path deviceNode) {
    Libc libc = Libc.INSTANCE;
    int fd;
    try {
      fd = libc.open(deviceNode.toString(), Libc.O_RDONLY | Libc.O_CLOEXEC);
    } catch (LastErrorException e) {
      if (e.getErrorCode() == Errno.ENXIO) {
        // The kernel refuses to open a loop device only while it is being cleared or removed:
        // no mount or other opener is left on it and no I/O can reach its file any more, so it
        // backs nothing. Another volume's unstage does this next to every scan.
        return Optional.empty();
      }
      // otherwise never "not attached": that would attach the image a second time
      throw new HostCommandException(
          "cannot open "
              + deviceNode
              + " to ask which file backs it ("
              + e.getMessage()
              + "); the driver needs the host's /dev",
          e);
    }
    try (Memory info = new Memory(SIZE)) {
      info.clear();
      libc.ioctl(fd, LOOP_GET_STATUS64, info);
      return Optional.of(FileId.fromDeviceNumber(info.getLong(0), info.getLong(INODE_OFFSET)));
    } catch (LastErrorException e) {
      if (e.getErrorCode() == Errno.ENXIO) {
        return Optional.empty(); // detached meanwhile
      }
      throw new HostCommandException(
          "cannot read the status of " + deviceNode + ": " + e.getMessage(), e);
    } finally {
      libc.close(fd);
    }
  }
}
