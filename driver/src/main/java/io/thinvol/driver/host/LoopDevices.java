package io.thinvol.driver.host;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Finds, attaches, refreshes and detaches loop devices for image files. Lookups read sysfs (no
 * process), so an image is never attached twice: loop devices do not survive a reboot and are
 * re-attached lazily by whoever needs the device next.
 *
 * <p>An image has at most one read-write device (the one that is staged) and, while a block volume
 * is published read-only, one read-only device: a read-only mount does not stop writes through a
 * device node, a read-only loop device does.
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

  /** The read-write loop device backed by {@code image}, if any. */
  public Optional<LoopDevice> find(Path image) {
    return of(image).stream().filter(d -> !d.readOnly()).findFirst();
  }

  /** The read-only loop device backed by {@code image}, if any. */
  public Optional<LoopDevice> findReadOnly(Path image) {
    return of(image).stream().filter(LoopDevice::readOnly).findFirst();
  }

  /** Every loop device backed by {@code image}. */
  public List<LoopDevice> of(Path image) {
    Path wanted = image.toAbsolutePath().normalize();
    return all().stream().filter(d -> d.image().equals(wanted)).toList();
  }

  /** The images that back a read-write loop device (the staged volumes). */
  public Set<Path> attachedImages() {
    return all().stream()
        .filter(d -> !d.readOnly())
        .map(LoopDevice::image)
        .collect(Collectors.toSet());
  }

  /** Every attached loop device. */
  public List<LoopDevice> all() {
    List<LoopDevice> devices = new ArrayList<>();
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(sysBlock, "loop*")) {
      for (Path entry : entries) {
        try {
          String file = Files.readString(entry.resolve("loop/backing_file")).strip();
          if (!file.endsWith(DELETED_SUFFIX)) {
            devices.add(describe(entry, Path.of(file)));
          }
        } catch (NoSuchFileException e) {
          // nothing attached, or detached while we looked
        }
      }
    } catch (IOException e) {
      throw new HostCommandException("cannot read loop devices in " + sysBlock, e);
    }
    return devices;
  }

  /** The read-write loop device for {@code image}, attaching one if none is attached. */
  public LoopDevice attach(Path image) {
    return find(image).orElseGet(() -> attachNew(image, false));
  }

  /** The read-only loop device for {@code image}, attaching one if none is attached. */
  public LoopDevice attachReadOnly(Path image) {
    return findReadOnly(image).orElseGet(() -> attachNew(image, true));
  }

  private LoopDevice attachNew(Path image, boolean readOnly) {
    List<String> argv = new ArrayList<>(List.of("losetup", "--find", "--show"));
    if (readOnly) {
      argv.add("--read-only");
    }
    argv.add(image.toAbsolutePath().toString());
    Path device = Path.of(runner.run(TIMEOUT, argv).stdout().strip());
    try {
      return describe(
          sysBlock.resolve(device.getFileName().toString()), image.toAbsolutePath().normalize());
    } catch (IOException e) {
      throw new HostCommandException("cannot read the attached device " + device, e);
    }
  }

  /** Makes the kernel re-read the size of the backing file (after the image grew). */
  public void refreshSize(LoopDevice device) {
    runner.run(TIMEOUT, List.of("losetup", "--set-capacity", device.path().toString()));
  }

  public void detach(LoopDevice device) {
    runner.run(TIMEOUT, List.of("losetup", "--detach", device.path().toString()));
  }

  /** Detaches the read-write device backed by {@code image}; nothing when none is attached. */
  public void detach(Path image) {
    find(image).ifPresent(this::detach);
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

  private static LoopDevice describe(Path sysEntry, Path image) throws IOException {
    String name = sysEntry.getFileName().toString();
    String dev = Files.readString(sysEntry.resolve("dev")).strip();
    boolean readOnly = "1".equals(Files.readString(sysEntry.resolve("ro")).strip());
    return new LoopDevice(Path.of("/dev", name), dev, image, readOnly);
  }
}
