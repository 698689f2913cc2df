package io.thinvol.driver.host;

import com.sun.jna.LastErrorException;
import com.sun.jna.Memory;
import com.sun.jna.NativeLong;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * The loop device ioctls, as {@code losetup} makes them: find a free device, bind a file to it,
 * re-read its size, switch direct I/O, unbind it. Devices are attached without autoclear, as {@code
 * losetup --find} does: the driver detaches them itself.
 */
final class LoopControl {

  static final Path CONTROL = Path.of("/dev/loop-control");

  private static final NativeLong LOOP_SET_FD = new NativeLong(0x4C00);
  private static final NativeLong LOOP_CLR_FD = new NativeLong(0x4C01);
  private static final NativeLong LOOP_SET_STATUS64 = new NativeLong(0x4C04);
  private static final NativeLong LOOP_SET_CAPACITY = new NativeLong(0x4C07);
  private static final NativeLong LOOP_SET_DIRECT_IO = new NativeLong(0x4C08);
  private static final NativeLong LOOP_CONFIGURE = new NativeLong(0x4C0A);
  private static final NativeLong LOOP_CTL_GET_FREE = new NativeLong(0x4C82);

  // struct loop_info64 (232 bytes): u64 device, inode, rdevice, offset, sizelimit; u32 number,
  // encrypt_type, encrypt_key_size, flags; u8 file_name[64], crypt_name[64], key[32]; u64 init[2]
  private static final int INFO_SIZE = 232;
  private static final int INFO_FLAGS = 52;
  private static final int INFO_FILE_NAME = 56;
  private static final int FILE_NAME_SIZE = 64;
  // struct loop_config: u32 fd, block_size; struct loop_info64 info; u64 reserved[8]
  private static final int CONFIG_SIZE = 8 + INFO_SIZE + 64;
  private static final int CONFIG_BLOCK_SIZE = 4;
  private static final int CONFIG_INFO = 8;

  /**
   * The logical sector size every volume is bound with. Asked for direct I/O without a size, the
   * kernel takes the backing disk's (4096 on many disks), and a filesystem made with 1 KiB blocks
   * on a 512-byte device (mkfs's choice for small ext4 volumes) no longer mounts: a volume's sector
   * size must never depend on the node or the I/O mode. Where the backing file needs larger aligned
   * I/O the kernel stays buffered, and the caller reads the mode back.
   */
  private static final int SECTOR_SIZE = 512;

  private static final int LO_FLAGS_READ_ONLY = 1;
  private static final int LO_FLAGS_DIRECT_IO = 16;

  /** How often a free device is asked for when other processes keep taking it first. */
  static final int ATTEMPTS = 20;

  private LoopControl() {}

  /**
   * Binds {@code image} to a free loop device; returns the device's node. With {@code directIo} the
   * device is configured for direct I/O as it is bound, as {@code losetup --direct-io=on} does:
   * switching it afterwards (LOOP_SET_DIRECT_IO) freezes the device's queue, which costs more than
   * the rest of the attach. The kernel silently stays buffered when the file does not allow direct
   * I/O, and kernels before 5.8 bind buffered: the caller reads the mode back.
   */
  static Path attach(Path image, boolean readOnly, boolean directIo) {
    return attach(image, readOnly, directIo, true);
  }

  /**
   * Binds {@code image} to a free loop device. Another process may take the device that
   * LOOP_CTL_GET_FREE named before this one binds it (EBUSY): then it asks for another one.
   *
   * @param configure whether to try LOOP_CONFIGURE (Linux 5.8) before LOOP_SET_FD
   */
  static Path attach(Path image, boolean readOnly, boolean directIo, boolean configure) {
    int mode = readOnly ? Libc.O_RDONLY : Libc.O_RDWR;
    try (OpenFile backing = OpenFile.open(image, mode);
        OpenFile control = OpenFile.open(CONTROL, Libc.O_RDWR)) {
      for (int attempt = 1; ; attempt++) {
        Path node = node(control);
        try (OpenFile device = OpenFile.open(node, mode)) {
          bind(node, device, backing, image, readOnly, directIo, configure);
          return node;
        } catch (Errno.On e) {
          if (!(e.getCause() instanceof LastErrorException busy)
              || busy.getErrorCode() != Errno.EBUSY
              || attempt == ATTEMPTS) {
            throw e;
          }
        }
      }
    }
  }

  private static Path node(OpenFile control) {
    try {
      return Path.of("/dev/loop" + Libc.INSTANCE.ioctl(control.fd(), LOOP_CTL_GET_FREE, 0L));
    } catch (LastErrorException e) {
      throw Errno.on(CONTROL, e);
    }
  }

  private static void bind(
      Path node,
      OpenFile device,
      OpenFile backing,
      Path image,
      boolean readOnly,
      boolean directIo,
      boolean configure) {
    Libc libc = Libc.INSTANCE;
    int flags = readOnly ? LO_FLAGS_READ_ONLY : 0;
    try (Memory config = new Memory(CONFIG_SIZE)) {
      config.clear();
      config.setInt(0, backing.fd());
      config.setInt(CONFIG_BLOCK_SIZE, SECTOR_SIZE);
      if (configure) {
        describe(config, CONFIG_INFO, image, flags | (directIo ? LO_FLAGS_DIRECT_IO : 0));
        try {
          libc.ioctl(device.fd(), LOOP_CONFIGURE, config);
          return;
        } catch (LastErrorException e) {
          if (e.getErrorCode() != Errno.EINVAL && e.getErrorCode() != Errno.ENOTTY) {
            throw Errno.on(node, e);
          }
          // a kernel before 5.8: bind first, then describe (LOOP_SET_STATUS64 cannot switch
          // direct I/O on)
        }
      }
      describe(config, CONFIG_INFO, image, flags);
      libc.ioctl(device.fd(), LOOP_SET_FD, backing.fd());
      try {
        libc.ioctl(device.fd(), LOOP_SET_STATUS64, config.share(CONFIG_INFO));
      } catch (LastErrorException e) {
        try {
          clear(device);
        } catch (LastErrorException ignored) {
          // the status failure is what the caller needs to hear about
        }
        throw e;
      }
    } catch (LastErrorException e) {
      throw Errno.on(node, e);
    }
  }

  /** The loop_info64 at {@code offset}: its flags and the file's name (for losetup's listing). */
  private static void describe(Memory memory, int offset, Path image, int flags) {
    memory.setInt(offset + INFO_FLAGS, flags);
    byte[] name = image.toAbsolutePath().toString().getBytes(StandardCharsets.UTF_8);
    memory.write(offset + INFO_FILE_NAME, name, 0, Math.min(name.length, FILE_NAME_SIZE - 1));
  }

  /** Makes the device re-read the size of its file. */
  static void refreshCapacity(Path node) {
    try (OpenFile device = OpenFile.open(node, Libc.O_RDONLY)) {
      Libc.INSTANCE.ioctl(device.fd(), LOOP_SET_CAPACITY, 0L);
    }
  }

  /** Switches direct I/O to the backing file on or off. */
  static void directIo(Path node, boolean on) {
    try (OpenFile device = OpenFile.open(node, Libc.O_RDONLY)) {
      Libc.INSTANCE.ioctl(device.fd(), LOOP_SET_DIRECT_IO, on ? 1L : 0L);
    }
  }

  /**
   * Unbinds the device's file. A device still open elsewhere (mounted) is unbound by the kernel
   * when its last user closes it, as with {@code losetup --detach}.
   */
  static void detach(Path node) {
    try (OpenFile device = OpenFile.open(node, Libc.O_RDONLY)) {
      clear(device);
    }
  }

  private static void clear(OpenFile device) {
    Libc.INSTANCE.ioctl(device.fd(), LOOP_CLR_FD, 0L);
  }
}
