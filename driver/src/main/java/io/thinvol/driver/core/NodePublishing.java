package io.thinvol.driver.core;

import static io.thinvol.driver.core.NodeAttachments.belongsTo;
import static io.thinvol.driver.core.NodeAttachments.mountPoints;

import io.thinvol.driver.host.HostTools;
import io.thinvol.driver.host.LoopDevice;
import io.thinvol.driver.host.MountEntry;
import io.thinvol.driver.host.MountTable;
import io.thinvol.driver.store.AccessType;
import io.thinvol.driver.store.VolumeRecord;
import java.io.IOException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** NodePublish and NodeUnpublish: bind mounts of the staged filesystem or of the device node. */
final class NodePublishing {

  private static final Logger log = LoggerFactory.getLogger(NodePublishing.class);

  private final NodeAttachments attachments;
  private final VolumeFilesystems filesystems;
  private final HostTools host;

  NodePublishing(NodeAttachments attachments, VolumeFilesystems filesystems) {
    this.attachments = attachments;
    this.filesystems = filesystems;
    this.host = attachments.host();
  }

  /**
   * The caller holds the volume's lock. A reader-only access mode publishes read-only whatever
   * {@code readOnly} says.
   */
  void publish(
      String volumeId,
      Path stagingPath,
      Path targetPath,
      NodeManager.Usage usage,
      boolean readOnly) {
    VolumeRecord volume = attachments.requireUsable(volumeId, usage);
    boolean publishReadOnly = readOnly || usage.readerOnly();
    attachments.withDevice(
        volume, device -> publish(volume, device, stagingPath, targetPath, usage, publishReadOnly));
  }

  private void publish(
      VolumeRecord volume,
      LoopDevice device,
      Path stagingPath,
      Path targetPath,
      NodeManager.Usage usage,
      boolean readOnly) {
    String volumeId = volume.id();
    MountTable table =
        volume.accessType() == AccessType.MOUNT
            ? filesystems.ensureMounted(
                volume, device, stagingPath, NodeAttachments.stagingFlags(volume, usage))
            : host.mountTable();
    Optional<MountEntry> present = table.at(targetPath);
    if (present.isPresent()) {
      if (!belongsTo(present.get(), attachments.devices(volumeId), table)) {
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
    if (usage.singleWriter()) {
      requireNoOtherTarget(volumeId, table, stagingPath, targetPath);
    }
    try {
      if (volume.accessType() == AccessType.BLOCK) {
        publishBlock(volume, device, targetPath, readOnly);
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
   * SINGLE_NODE_SINGLE_WRITER (a ReadWriteOncePod claim) allows one publish: the spec's
   * NodePublishVolume row "SINGLE_NODE_SINGLE_WRITER, T1!=T2" is FAILED_PRECONDITION. Checked
   * before anything is mounted, so a refused call leaves nothing behind that would block the
   * cleanup of the first publish.
   */
  private void requireNoOtherTarget(
      String volumeId, MountTable table, Path stagingPath, Path targetPath) {
    List<Path> elsewhere =
        mountPoints(table, attachments.devices(volumeId)).stream()
            .filter(p -> !p.equals(stagingPath) && !p.equals(targetPath))
            .distinct()
            .toList();
    if (!elsewhere.isEmpty()) {
      throw CsiException.failedPrecondition(
          "volume %s is already published at %s and its access mode SINGLE_NODE_SINGLE_WRITER"
              + " (ReadWriteOncePod) allows one publish; unpublish it there first",
          volumeId, elsewhere.get(0));
    }
  }

  /**
   * Binds the device node onto the target. Read-only goes through a read-only loop device: the
   * kernel ignores a read-only mount when a device node is opened for writing.
   */
  private void publishBlock(VolumeRecord volume, LoopDevice device, Path target, boolean readOnly)
      throws IOException {
    createBlockTarget(target);
    if (!readOnly) {
      host.mounts().bind(device.path(), target, false, List.of());
      return;
    }
    Path image = attachments.image(volume.id());
    boolean existed = host.loops().findReadOnly(image).isPresent();
    LoopDevice readOnlyDevice = host.loops().attachReadOnly(image, VolumeModifier.ioModeOf(volume));
    try {
      VolumeModifier.align(host, volume, List.of(readOnlyDevice));
      host.mounts().bind(readOnlyDevice.path(), target, true, List.of());
    } catch (RuntimeException e) {
      if (!existed) {
        host.loops().detach(readOnlyDevice);
      }
      throw e;
    }
  }

  /**
   * The caller holds the volume's lock. A volume this node no longer holds is unpublished when
   * nothing is mounted at the target: after a reboot and a force-deleted pod the CO retries its
   * cleanup until it hears OK.
   */
  void unpublish(String volumeId, Path targetPath) {
    boolean known = attachments.known(volumeId).isPresent();
    List<LoopDevice> devices = known ? attachments.devices(volumeId) : List.of();
    if (!known) {
      Optional<MountEntry> present = host.mountTable().at(targetPath);
      if (present.isPresent()) {
        throw NodeAttachments.unknownVolumeMounted(volumeId, targetPath, present.get());
      }
    }
    attachments.unmountAll(targetPath, "target", volumeId, devices);
    removeTarget(targetPath);
    MountTable after = host.mountTable();
    for (LoopDevice device : devices) {
      if (device.readOnly() && after.ofDeviceNode(device).isEmpty()) {
        host.loops().detach(device); // the last read-only publish is gone
      }
    }
    log.info("unpublished volume {} from {}", volumeId, targetPath);
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
