package io.thinvol.driver.host;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

/**
 * Finds, attaches, refreshes and detaches loop devices for image files. An image's devices are
 * recognised by the device and inode of their backing file (LOOP_GET_STATUS64), never by the path
 * sysfs shows: that path depends on the mount namespace that attached the device, and a driver
 * restarted in a new container sees its own volumes' devices under paths that no longer exist.
 * Lookups run no process, so an image is never attached twice: loop devices do not survive a reboot
 * and are re-attached lazily by whoever needs the device next.
 *
 * <p>An image has at most one read-write device (the one that is staged) and, while a block volume
 * is published read-only, one read-only device: a read-only mount does not stop writes through a
 * device node, a read-only loop device does.
 */
public final class LoopDevices {

  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  /** How long a detach may stay pending on openers before the caller hears why. */
  public static final Duration DETACH_WAIT = Duration.ofSeconds(5);

  private final CommandRunner runner;

  /** The name of each image's read-write device when last seen: a hint, never trusted unchecked. */
  private final Map<FileId, String> readWriteDevices = new ConcurrentHashMap<>();

  public LoopDevices(CommandRunner runner) {
    this.runner = runner;
  }

  /**
   * The read-write loop device backed by {@code image}, if any. The device last found or attached
   * for the image is asked first (one device's status, checked with the kernel like any other);
   * only when it no longer backs the image are all devices scanned, which costs about a millisecond
   * per 30 attached devices on every stage, publish and reclaim.
   */
  public Optional<LoopDevice> find(Path image) {
    Optional<FileId> wanted = FileId.of(image);
    if (wanted.isEmpty()) {
      return Optional.empty();
    }
    Optional<LoopDevice> known = lastReadWrite(wanted.get());
    if (known.isPresent()) {
      return known;
    }
    Optional<LoopDevice> found =
        all().stream().filter(d -> backsReadWrite(d, wanted.get())).findFirst();
    found.ifPresent(this::remember);
    return found;
  }

  private Optional<LoopDevice> lastReadWrite(FileId file) {
    String name = readWriteDevices.get(file);
    if (name == null) {
      return Optional.empty();
    }
    Optional<LoopDevice> device = LoopSysfs.named(name).filter(d -> backsReadWrite(d, file));
    if (device.isEmpty()) {
      readWriteDevices.remove(file, name); // detached, or another file's device now
    }
    return device;
  }

  private static boolean backsReadWrite(LoopDevice device, FileId file) {
    return !device.readOnly() && device.backingFile().equals(file);
  }

  private void remember(LoopDevice device) {
    if (!device.readOnly()) {
      readWriteDevices.put(device.backingFile(), device.name());
    }
  }

  /** The read-only loop device backed by {@code image}, if any. */
  public Optional<LoopDevice> findReadOnly(Path image) {
    return of(image).stream().filter(LoopDevice::readOnly).findFirst();
  }

  /** Every loop device backed by {@code image}; none when the image does not exist. */
  public List<LoopDevice> of(Path image) {
    return FileId.of(image)
        .map(wanted -> all().stream().filter(d -> d.backingFile().equals(wanted)).toList())
        .orElse(List.of());
  }

  /** The files that back a read-write loop device (the staged volumes). */
  public Set<FileId> attachedFiles() {
    return all().stream()
        .filter(d -> !d.readOnly())
        .map(LoopDevice::backingFile)
        .collect(Collectors.toSet());
  }

  /** Every attached loop device. */
  public List<LoopDevice> all() {
    return LoopSysfs.all();
  }

  /** The read-write loop device for {@code image}, attaching a buffered one if none is attached. */
  public LoopDevice attach(Path image) {
    return attach(image, IoMode.BUFFERED);
  }

  /**
   * The read-write loop device for {@code image}, attaching one in {@code mode} if none is attached
   * (a device found attached keeps its mode). The kernel may decline direct I/O for an image on a
   * filesystem without O_DIRECT: {@link #ioMode} tells what the device does.
   */
  public LoopDevice attach(Path image, IoMode mode) {
    return find(image).orElseGet(() -> attachNew(image, false, mode));
  }

  /**
   * A new read-write loop device for {@code image}, for a caller that has just found none attached
   * and holds the image's lock: it saves the second scan of every loop device that {@link
   * #attach(Path, IoMode)} makes.
   */
  public LoopDevice attachUnattached(Path image, IoMode mode) {
    return attachNew(image, false, mode);
  }

  /** The read-only loop device for {@code image}, attaching one in {@code mode} if none is. */
  public LoopDevice attachReadOnly(Path image, IoMode mode) {
    return findReadOnly(image).orElseGet(() -> attachNew(image, true, mode));
  }

  private LoopDevice attachNew(Path image, boolean readOnly, IoMode mode) {
    if (!readOnly) {
      forgetBlockSums(image);
    }
    List<String> shown = new ArrayList<>(List.of("LOOP_CONFIGURE"));
    if (readOnly) {
      shown.add("--read-only");
    }
    if (mode == IoMode.DIRECT) {
      shown.add("--direct-io");
    }
    shown.add(image.toAbsolutePath().toString());
    HostCall<Path> attach =
        HostCall.of(shown, () -> LoopControl.attach(image, readOnly, mode == IoMode.DIRECT))
            .meaning(
                Errno.EBUSY,
                "is busy: other processes took every free loop device first; try again")
            .undoneLateBy(LoopControl::detach);
    Path device = runner.call(TIMEOUT, attach);
    LoopDevice attached =
        LoopSysfs.named(device.getFileName().toString())
            .orElseThrow(
                () -> new HostCommandException(device + " was detached right after attaching it"));
    remember(attached);
    if (mode == IoMode.DIRECT && ioMode(attached) != IoMode.DIRECT) {
      try { // a kernel before 5.8 binds buffered
        setIoMode(attached, mode);
      } catch (HostCommandException e) {
        // the device works buffered; the caller sees the mode through ioMode() and warns
      }
    }
    return attached;
  }

  /** Whatever writes through the device next, the record of the image's checksums is gone first. */
  private static void forgetBlockSums(Path image) {
    try {
      BlockSumsFile.forget(image);
    } catch (IOException e) {
      throw new HostCommandException(
          "cannot remove " + BlockSumsFile.of(image) + " before attaching its image", e);
    }
  }

  /** Makes the kernel re-read the size of the backing file (after the image grew). */
  public void refreshSize(LoopDevice device) {
    runner.call(
        TIMEOUT,
        HostCall.action(
            List.of("LOOP_SET_CAPACITY", device.path().toString()),
            () -> LoopControl.refreshCapacity(device.path())));
  }

  /**
   * Switches an attached device to {@code mode} while it is in use: the kernel writes the image's
   * dirty pages back before it goes direct and holds I/O while it switches. Fails when the image's
   * filesystem does not allow direct I/O.
   */
  public void setIoMode(LoopDevice device, IoMode mode) {
    boolean on = mode == IoMode.DIRECT;
    runner.call(
        TIMEOUT,
        HostCall.action(
                List.of("LOOP_SET_DIRECT_IO", on ? "on" : "off", device.path().toString()),
                () -> LoopControl.directIo(device.path(), on))
            .meaning(
                Errno.EINVAL,
                "cannot do direct I/O to its file: the data dir's filesystem does not support"
                    + " O_DIRECT, or its logical block size differs from the device's"));
  }

  /** How the device reaches its image now, as the kernel reports it. */
  public IoMode ioMode(LoopDevice device) {
    return LoopSysfs.ioMode(device);
  }

  /**
   * Detaches the device and returns once it no longer backs its image. The kernel only marks a
   * device that someone else still has open (udev's probe after an unmount, a process, a mount in
   * another namespace) for autoclear and detaches it when the last opener closes it: this waits up
   * to {@link #DETACH_WAIT} for that, then fails with {@link DetachPendingException} naming who
   * holds it, so no caller goes on as if the device were gone. Repeating the call is safe.
   */
  public void detach(LoopDevice device) {
    readWriteDevices.remove(device.backingFile(), device.name());
    try {
      runner.call(
          TIMEOUT,
          HostCall.action(
              List.of("LOOP_CLR_FD", device.path().toString()),
              () -> LoopControl.detach(device.path())));
    } catch (HostCommandException e) {
      if (e.errno() != Errno.ENXIO) { // ENXIO: detached already, or being detached right now
        throw e;
      }
    }
    awaitDetached(device);
  }

  /**
   * Whether the device is marked to detach once its last opener closes it (LO_FLAGS_AUTOCLEAR): a
   * detach asked for earlier that is still pending.
   */
  public boolean detaching(LoopDevice device) {
    return LoopSysfs.detaching(device);
  }

  /** Waits until the device no longer backs its image; fails after {@link #DETACH_WAIT}. */
  public void awaitDetached(LoopDevice device) {
    DetachWait.await(device, DETACH_WAIT);
  }

  /** Detaches the read-write device backed by {@code image}; nothing when none is attached. */
  public void detach(Path image) {
    find(image).ifPresent(this::detach);
  }

  /** The size in bytes the kernel currently sees for the device. */
  public long sizeBytes(LoopDevice device) {
    return LoopSysfs.sizeBytes(device);
  }
}
