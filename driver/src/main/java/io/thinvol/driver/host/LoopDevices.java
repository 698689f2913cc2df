package io.thinvol.driver.host;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Finds, attaches, refreshes and detaches loop devices for image files. Lookups read sysfs (no
 * process), so an image is never attached twice: loop devices do not survive a reboot and are
 * re-attached lazily by whoever needs the device next.
 */
public final class LoopDevices {

  private static final Duration TIMEOUT = Duration.ofSeconds(30);
  private static final String DELETED_SUFFIX = " (deleted)";

  private final CommandRunner runner;
  private final Path sysBlock;

  public LoopDevices(CommandRunner runner) {
    this(runner, Path.of("/sys/block"));
  }

  LoopDevices(CommandRunner runner, Path sysBlock) {
    this.runner = runner;
    this.sysBlock = sysBlock;
  }

  /** The loop device currently backed by {@code image}, if any. */
  public Optional<LoopDevice> find(Path image) {
    return Optional.ofNullable(attached().get(image.toAbsolutePath().normalize()));
  }

  /** The image files that currently back a loop device. */
  public Set<Path> attachedImages() {
    return attached().keySet();
  }

  private Map<Path, LoopDevice> attached() {
    Map<Path, LoopDevice> devices = new HashMap<>();
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(sysBlock, "loop*")) {
      for (Path entry : entries) {
        String file;
        try {
          file = Files.readString(entry.resolve("loop/backing_file")).strip();
        } catch (NoSuchFileException e) {
          continue; // nothing attached, or detached while we looked
        }
        if (!file.endsWith(DELETED_SUFFIX)) {
          String name = entry.getFileName().toString();
          devices.put(Path.of(file), new LoopDevice(Path.of("/dev", name), readDev(entry)));
        }
      }
    } catch (IOException e) {
      throw new HostCommandException("cannot read loop devices in " + sysBlock, e);
    }
    return devices;
  }

  /** The loop device for {@code image}, attaching one if none is attached. */
  public LoopDevice attach(Path image) {
    Optional<LoopDevice> existing = find(image);
    if (existing.isPresent()) {
      return existing.get();
    }
    CommandResult result =
        runner.run(
            TIMEOUT, List.of("losetup", "--find", "--show", image.toAbsolutePath().toString()));
    Path device = Path.of(result.stdout().strip());
    return new LoopDevice(device, readDev(sysBlock.resolve(device.getFileName().toString())));
  }

  /** Makes the kernel re-read the size of the backing file (after the image grew). */
  public void refreshSize(LoopDevice device) {
    runner.run(TIMEOUT, List.of("losetup", "--set-capacity", device.path().toString()));
  }

  /** Detaches the device backed by {@code image}; does nothing when none is attached. */
  public void detach(Path image) {
    Optional<LoopDevice> device = find(image);
    if (device.isPresent()) {
      runner.run(TIMEOUT, List.of("losetup", "--detach", device.get().path().toString()));
    }
  }

  /** The size in bytes the kernel currently sees for the device. */
  public long sizeBytes(LoopDevice device) {
    try {
      String sectors = Files.readString(sysBlock.resolve(device.name()).resolve("size")).strip();
      return Long.parseLong(sectors) * 512;
    } catch (IOException | NumberFormatException e) {
      throw new HostCommandException("cannot read the size of " + device.path(), e);
    }
  }

  private static String readDev(Path sysEntry) {
    try {
      return Files.readString(sysEntry.resolve("dev")).strip();
    } catch (IOException e) {
      throw new HostCommandException("cannot read " + sysEntry.resolve("dev"), e);
    }
  }
}
