package io.thinvol.driver.core;

import io.thinvol.driver.host.FsUsage;
import io.thinvol.driver.host.HostCommandException;
import io.thinvol.driver.host.HostTools;
import io.thinvol.driver.host.LoopDevice;
import io.thinvol.driver.host.MountEntry;
import io.thinvol.driver.host.MountTable;
import io.thinvol.driver.store.AccessType;
import io.thinvol.driver.store.DataLayout;
import io.thinvol.driver.store.VolumeRecord;
import java.io.IOException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node side: loop devices, filesystems and mounts. What is attached and mounted is read from
 * sysfs and mountinfo on every call, never remembered, so a restart or a reboot cannot make the
 * driver believe something that is no longer true. Missing loop devices are attached again.
 */
public final class NodeManager {

  private static final Logger log = LoggerFactory.getLogger(NodeManager.class);
  private static final int MAX_STACKED_MOUNTS = 8;

  private final DataLayout layout;
  private final VolumeManager volumes;
  private final HostTools host;
  private final OperationLocks locks;
  private final VolumeFilesystems filesystems;

  public NodeManager(
      DataLayout layout, VolumeManager volumes, HostTools host, OperationLocks locks) {
    this.layout = layout;
    this.volumes = volumes;
    this.host = host;
    this.locks = locks;
    this.filesystems = new VolumeFilesystems(volumes, host);
  }

  /** How the CO wants to use the volume on this node. */
  public record Usage(AccessType accessType, String fsType, List<String> mountFlags) {}

  /** Stats of a published volume; {@code filesystem} is null for block volumes. */
  public record Stats(FsUsage filesystem, long deviceBytes, String problem) {}

  public void stage(String volumeId, Path stagingPath, Usage usage) {
    try (OperationLocks.Held held = locks.tryAcquire(volumeId, "volume " + volumeId)) {
      VolumeRecord volume = requireUsable(volumeId, usage);
      withDevice(
          volume,
          device -> {
            if (volume.accessType() == AccessType.MOUNT) {
              filesystems.ensureMounted(volume, device, stagingPath, usage.mountFlags());
            }
            log.info("staged volume {} at {} ({})", volumeId, stagingPath, device.path());
          });
    }
  }

  public void unstage(String volumeId, Path stagingPath) {
    try (OperationLocks.Held held = locks.tryAcquire(volumeId, "volume " + volumeId)) {
      volumes.requireVolume(volumeId);
      Path image = layout.volumeImage(volumeId);
      List<LoopDevice> devices = host.loops().of(image);
      Optional<LoopDevice> device = devices.stream().filter(d -> !d.readOnly()).findFirst();
      MountTable table = host.mountTable();
      Optional<MountEntry> staged = table.at(stagingPath);
      if (staged.isPresent() && !belongsTo(staged.get(), devices, table)) {
        throw CsiException.failedPrecondition(
            "staging path %s holds a mount of device %s, not volume %s; leaving it alone",
            stagingPath, staged.get().source(), volumeId);
      }
      if (device.isEmpty()) {
        return; // not attached: nothing is staged
      }
      List<Path> published = mountPoints(table, devices);
      published.remove(stagingPath.normalize());
      if (!published.isEmpty()) {
        throw CsiException.failedPrecondition(
            "volume %s is still published at %s; unpublish it before unstaging",
            volumeId, published);
      }
      if (staged.isPresent()) {
        unmount(stagingPath, volumeId);
      }
      host.loops().detach(image);
      log.info("unstaged volume {} from {}", volumeId, stagingPath);
    }
  }

  public void publish(
      String volumeId, Path stagingPath, Path targetPath, Usage usage, boolean readOnly) {
    try (OperationLocks.Held held = locks.tryAcquire(volumeId, "volume " + volumeId)) {
      VolumeRecord volume = requireUsable(volumeId, usage);
      withDevice(
          volume, device -> publish(volume, device, stagingPath, targetPath, usage, readOnly));
    }
  }

  private void publish(
      VolumeRecord volume,
      LoopDevice device,
      Path stagingPath,
      Path targetPath,
      Usage usage,
      boolean readOnly) {
    String volumeId = volume.id();
    MountTable table =
        volume.accessType() == AccessType.MOUNT
            ? filesystems.ensureMounted(volume, device, stagingPath, usage.mountFlags())
            : host.mountTable();
    Optional<MountEntry> present = table.at(targetPath);
    if (present.isPresent()) {
      if (!belongsTo(present.get(), host.loops().of(device.image()), table)) {
        throw CsiException.alreadyExists(
            "target %s already has another device mounted (%s)",
            targetPath, present.get().source());
      }
      if (present.get().readOnly() != readOnly) {
        throw CsiException.alreadyExists(
            "volume %s is already published at %s %s",
            volumeId, targetPath, present.get().readOnly() ? "read-only" : "read-write");
      }
      return;
    }
    try {
      if (volume.accessType() == AccessType.BLOCK) {
        publishBlock(device, targetPath, readOnly);
      } else {
        Files.createDirectories(targetPath);
        host.mounts().bind(stagingPath, targetPath, readOnly, List.of());
      }
    } catch (IOException e) {
      throw CsiException.internal("cannot create target " + targetPath + ": " + e.getMessage(), e);
    }
    log.info("published volume {} at {}{}", volumeId, targetPath, readOnly ? " (read-only)" : "");
  }

  /**
   * Binds the device node onto the target. Read-only goes through a read-only loop device: the
   * kernel ignores a read-only mount when a device node is opened for writing.
   */
  private void publishBlock(LoopDevice device, Path target, boolean readOnly) throws IOException {
    createBlockTarget(target);
    if (!readOnly) {
      host.mounts().bind(device.path(), target, false, List.of());
      return;
    }
    boolean existed = host.loops().findReadOnly(device.image()).isPresent();
    LoopDevice readOnlyDevice = host.loops().attachReadOnly(device.image());
    try {
      host.mounts().bind(readOnlyDevice.path(), target, true, List.of());
    } catch (RuntimeException e) {
      if (!existed) {
        host.loops().detach(readOnlyDevice);
      }
      throw e;
    }
  }

  public void unpublish(String volumeId, Path targetPath) {
    try (OperationLocks.Held held = locks.tryAcquire(volumeId, "volume " + volumeId)) {
      volumes.requireVolume(volumeId);
      List<LoopDevice> devices = host.loops().of(layout.volumeImage(volumeId));
      for (int i = 0; i < MAX_STACKED_MOUNTS; i++) {
        MountTable table = host.mountTable();
        Optional<MountEntry> present = table.at(targetPath);
        if (present.isEmpty()) {
          break;
        }
        if (!belongsTo(present.get(), devices, table)) {
          throw CsiException.failedPrecondition(
              "target %s holds a mount of %s, not volume %s; leaving it alone",
              targetPath, present.get().source(), volumeId);
        }
        unmount(targetPath, volumeId);
      }
      removeTarget(targetPath);
      MountTable after = host.mountTable();
      for (LoopDevice device : devices) {
        if (device.readOnly() && after.ofDeviceNode(device).isEmpty()) {
          host.loops().detach(device); // the last read-only publish is gone
        }
      }
      log.info("unpublished volume {} from {}", volumeId, targetPath);
    }
  }

  public Stats stats(String volumeId, Path volumePath) {
    VolumeRecord volume = volumes.requireVolume(volumeId);
    Path image = layout.volumeImage(volumeId);
    if (!Files.exists(image)) {
      return new Stats(null, 0, "the image file " + image + " is missing");
    }
    List<LoopDevice> devices = host.loops().of(image);
    MountTable table = host.mountTable();
    Optional<MountEntry> present = table.at(volumePath);
    if (present.isEmpty() || !belongsTo(present.get(), devices, table)) {
      throw CsiException.notFound("volume %s is not available at %s", volumeId, volumePath);
    }
    if (volume.accessType() == AccessType.BLOCK) {
      return new Stats(null, host.loops().sizeBytes(devices.get(0)), null);
    }
    FsUsage usage = host.stats().filesystem(volumePath);
    String problem =
        present.get().filesystemReadOnly()
            ? "the filesystem went read-only (the kernel does that after an I/O or consistency"
                + " error); check the node's kernel log and repair it while unstaged"
            : null;
    return new Stats(usage, host.loops().sizeBytes(devices.get(0)), problem);
  }

  /**
   * Grows the loop device and the filesystem to the image's size; returns the new size. With {@code
   * growImage} (node-side expansion) the image itself is grown here first, on the node that holds
   * it.
   */
  public long expand(
      String volumeId, Path volumePath, long requiredBytes, long limitBytes, boolean growImage) {
    try (OperationLocks.Held held = locks.tryAcquire(volumeId, "volume " + volumeId)) {
      VolumeRecord volume = volumes.requireVolume(volumeId);
      if (requiredBytes > volume.sizeBytes()) {
        if (!growImage) {
          throw CsiException.outOfRange(
              "volume %s is %d bytes; ControllerExpandVolume must grow it to %d first",
              volumeId, volume.sizeBytes(), requiredBytes);
        }
        volume = volumes.growImage(volumeId, requiredBytes, limitBytes);
      }
      LoopDevice device =
          host.loops()
              .find(layout.volumeImage(volumeId))
              .orElseThrow(
                  () ->
                      CsiException.failedPrecondition(
                          "volume %s is not staged on this node; it is grown when next staged",
                          volumeId));
      List<LoopDevice> devices = host.loops().of(device.image());
      devices.forEach(host.loops()::refreshSize);
      if (volume.accessType() == AccessType.MOUNT && volume.growFilesystemPending()) {
        MountTable table = host.mountTable();
        Path mountPoint =
            table.at(volumePath).filter(e -> belongsTo(e, devices, table)).isPresent()
                ? volumePath
                : volumes
                    .mountedAt(volume)
                    .orElseThrow(
                        () ->
                            CsiException.failedPrecondition(
                                "volume %s has no mounted filesystem on this node", volumeId));
        filesystems.grow(volume, device, mountPoint);
      }
      return host.loops().sizeBytes(device);
    }
  }

  /**
   * Runs {@code body} with the volume's loop device, attaching it if needed. When the body fails, a
   * device this call attached is detached again, so a refused call leaves nothing behind.
   */
  private void withDevice(VolumeRecord volume, java.util.function.Consumer<LoopDevice> body) {
    Path image = layout.volumeImage(volume.id());
    Optional<LoopDevice> attached = host.loops().find(image);
    boolean wasAttached = attached.isPresent();
    LoopDevice device = attached.orElseGet(() -> host.loops().attach(image));
    try {
      body.accept(device);
    } catch (RuntimeException e) {
      if (!wasAttached && mountPoints(host.mountTable(), List.of(device)).isEmpty()) {
        try {
          host.loops().detach(image);
        } catch (RuntimeException detachFailure) {
          e.addSuppressed(detachFailure);
        }
      }
      throw e;
    }
  }

  private VolumeRecord requireUsable(String volumeId, Usage usage) {
    VolumeRecord volume = volumes.requireVolume(volumeId);
    if (volume.accessType() != usage.accessType()) {
      throw CsiException.failedPrecondition(
          "volume %s is a %s volume and cannot be used as %s",
          volumeId, volume.accessType(), usage.accessType());
    }
    if (usage.fsType() != null
        && !usage.fsType().isEmpty()
        && !usage.fsType().equals(volume.fsType())) {
      throw CsiException.failedPrecondition(
          "volume %s holds an %s filesystem, not %s", volumeId, volume.fsType(), usage.fsType());
    }
    if (!Files.exists(layout.volumeImage(volumeId))) {
      throw CsiException.failedPrecondition(
          "the image file of volume %s is missing (%s)", volumeId, layout.volumeImage(volumeId));
    }
    return volume;
  }

  /** Whether a mount is the volume's filesystem or one of its device nodes. */
  private static boolean belongsTo(MountEntry entry, List<LoopDevice> devices, MountTable table) {
    return devices.stream()
        .anyMatch(
            device ->
                entry.majorMinor().equals(device.majorMinor())
                    || table.ofDeviceNode(device).contains(entry));
  }

  private static List<Path> mountPoints(MountTable table, List<LoopDevice> devices) {
    List<Path> points = new ArrayList<>();
    for (LoopDevice device : devices) {
      table.ofDevice(device).forEach(e -> points.add(e.mountPoint()));
      table.ofDeviceNode(device).forEach(e -> points.add(e.mountPoint()));
    }
    return points;
  }

  private void unmount(Path path, String volumeId) {
    try {
      host.mounts().unmount(path);
    } catch (HostCommandException e) {
      if (e.stderrContains("busy")) {
        throw CsiException.failedPrecondition(
            "%s (volume %s) is busy: a process still uses it; %s", path, volumeId, e.getMessage());
      }
      throw e;
    }
  }

  private static void createBlockTarget(Path target) throws IOException {
    Files.createDirectories(target.getParent());
    if (!Files.exists(target, LinkOption.NOFOLLOW_LINKS)) {
      Files.createFile(target);
    }
  }

  /** Removes the empty directory or empty file left at a target; never anything with data. */
  private static void removeTarget(Path target) {
    try {
      if (Files.isDirectory(target, LinkOption.NOFOLLOW_LINKS)) {
        Files.delete(target);
      } else if (Files.isRegularFile(target, LinkOption.NOFOLLOW_LINKS)
          && Files.size(target) == 0) {
        Files.delete(target);
      }
    } catch (DirectoryNotEmptyException e) {
      log.warn("left {} in place: it is not empty", target);
    } catch (IOException e) {
      throw CsiException.internal("cannot remove target " + target + ": " + e.getMessage(), e);
    }
  }
}
