package io.thinvol.driver.host;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What the kernel shows of loop devices: each device's backing file (by LOOP_GET_STATUS64, see
 * {@link LoopDevices}), read-only flag, size, I/O mode and pending detach. Runs no process.
 */
final class LoopSysfs {

  static final Path SYS_BLOCK = Path.of("/sys/block");
  private static final Path DEV = Path.of("/dev");
  private static final int DESCRIBE_ATTEMPTS = 20;

  private LoopSysfs() {}

  /** Every attached loop device. */
  static List<LoopDevice> all() {
    List<LoopDevice> devices = new ArrayList<>();
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(SYS_BLOCK, "loop*")) {
      for (Path entry : entries) {
        describe(entry).ifPresent(devices::add);
      }
    } catch (IOException e) {
      throw new HostCommandException("cannot read loop devices in " + SYS_BLOCK, e);
    }
    return devices;
  }

  /** The device named {@code name} (loop3), or empty when nothing is attached to it. */
  static Optional<LoopDevice> named(String name) {
    return describe(SYS_BLOCK.resolve(name));
  }

  /** How the device reaches its image now, as the kernel reports it. */
  static IoMode ioMode(LoopDevice device) {
    Path dio = SYS_BLOCK.resolve(device.name()).resolve("loop/dio");
    try {
      return "1".equals(Files.readString(dio).strip()) ? IoMode.DIRECT : IoMode.BUFFERED;
    } catch (IOException e) {
      throw new HostCommandException("cannot read " + dio, e);
    }
  }

  /**
   * Whether the device is marked to detach once its last opener closes it (LO_FLAGS_AUTOCLEAR): a
   * detach asked for earlier that is still pending.
   */
  static boolean detaching(LoopDevice device) {
    Path autoclear = SYS_BLOCK.resolve(device.name()).resolve("loop/autoclear");
    try {
      return "1".equals(Files.readString(autoclear).strip());
    } catch (NoSuchFileException e) {
      return false; // detached meanwhile
    } catch (IOException e) {
      throw new HostCommandException("cannot read " + autoclear, e);
    }
  }

  /** The size in bytes the kernel currently sees for the device. */
  static long sizeBytes(LoopDevice device) {
    try {
      String sectors = Files.readString(SYS_BLOCK.resolve(device.name()).resolve("size")).strip();
      return Long.parseLong(sectors) * 512;
    } catch (IOException | NumberFormatException e) {
      throw new HostCommandException("cannot read the size of " + device.path(), e);
    }
  }

  /**
   * The device of a sysfs entry, or empty when nothing is attached to it. A read that fails while
   * the kernel detaches the device (sysfs answers ENODEV as it removes the attributes) is made
   * again: by then the device is unbound, or bound anew by someone else.
   */
  private static Optional<LoopDevice> describe(Path sysEntry) {
    IOException failed = null;
    for (int attempt = 0; attempt < DESCRIBE_ATTEMPTS; attempt++) {
      try {
        return describeOnce(sysEntry);
      } catch (NoSuchFileException e) {
        return Optional.empty(); // nothing attached, or detached while we looked
      } catch (IOException e) {
        failed = e;
        pause();
      }
    }
    throw new HostCommandException("cannot read " + sysEntry, failed);
  }

  private static Optional<LoopDevice> describeOnce(Path sysEntry) throws IOException {
    String name = sysEntry.getFileName().toString();
    String backingName = Files.readString(sysEntry.resolve("loop/backing_file")).strip();
    Optional<FileId> backing = LoopStatus.backingFile(DEV.resolve(name));
    if (backing.isEmpty()) {
      return Optional.empty();
    }
    String number = Files.readString(sysEntry.resolve("dev")).strip();
    boolean readOnly = "1".equals(Files.readString(sysEntry.resolve("ro")).strip());
    return Optional.of(
        new LoopDevice(DEV.resolve(name), number, backing.get(), backingName, readOnly));
  }

  private static void pause() {
    try {
      Thread.sleep(1);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new HostCommandException("interrupted while reading loop devices", e);
    }
  }
}
