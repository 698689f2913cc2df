package io.thinvol.driver.core;

import static io.thinvol.driver.core.NodeAttachments.belongsTo;
import static io.thinvol.driver.core.NodeAttachments.mountPoints;

import io.thinvol.driver.host.DetachPendingException;
import io.thinvol.driver.host.LoopDevice;
import io.thinvol.driver.host.MountEntry;
import io.thinvol.driver.host.MountTable;
import io.thinvol.driver.store.AccessType;
import io.thinvol.driver.store.VolumeRecord;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** NodeStage and NodeUnstage: a volume's loop device and, for mount volumes, its filesystem. */
final class NodeStaging {

  private static final Logger log = LoggerFactory.getLogger(NodeStaging.class);

  private final NodeAttachments attachments;
  private final VolumeFilesystems filesystems;

  NodeStaging(NodeAttachments attachments, VolumeFilesystems filesystems) {
    this.attachments = attachments;
    this.filesystems = filesystems;
  }

  /** The caller holds the volume's lock. */
  void stage(String volumeId, Path stagingPath, NodeManager.Usage usage) {
    VolumeRecord volume = attachments.requireUsable(volumeId, usage);
    List<String> flags = NodeAttachments.stagingFlags(volume, usage);
    attachments.withDevice(
        volume,
        (device, attachedNow) -> {
          if (volume.accessType() == AccessType.MOUNT) {
            // one read of the mounts serves both checks; nothing after the mount needs them
            MountTable table = attachments.host().mountTable();
            requireSameAccess(volume, device, table, stagingPath, flags.contains("ro"));
            filesystems.ensureMounted(volume, device, attachedNow, table, stagingPath, flags);
          }
          log.info("staged volume {} at {} ({})", volumeId, stagingPath, device.path());
        });
  }

  /** A repeated stage asking read-write of a volume staged read-only, or the reverse. */
  private static void requireSameAccess(
      VolumeRecord volume,
      LoopDevice device,
      MountTable table,
      Path stagingPath,
      boolean readOnly) {
    Optional<MountEntry> present = table.at(stagingPath);
    if (present.isPresent()
        && present.get().majorMinor().equals(device.majorMinor())
        && present.get().readOnly() != readOnly) {
      throw CsiException.alreadyExists(
          "volume %s is already staged at %s %s; unstage it to stage it %s",
          volume.id(),
          stagingPath,
          present.get().readOnly() ? "read-only" : "read-write",
          readOnly ? "read-only" : "read-write");
    }
  }

  /**
   * The caller holds the volume's lock. A volume this node no longer holds is unstaged when nothing
   * is mounted at the path: after a reboot the CO retries its cleanup until it hears OK.
   */
  void unstage(String volumeId, Path stagingPath) {
    MountTable table = attachments.host().mountTable();
    Optional<MountEntry> staged = table.at(stagingPath);
    if (attachments.known(volumeId).isEmpty()) {
      if (staged.isPresent()) {
        throw NodeAttachments.unknownVolumeMounted(volumeId, stagingPath, staged.get());
      }
      log.info("volume {} does not exist; nothing is staged at {}", volumeId, stagingPath);
      return;
    }
    List<LoopDevice> devices = attachments.devices(volumeId);
    Optional<LoopDevice> device = devices.stream().filter(d -> !d.readOnly()).findFirst();
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
          "volume %s is still published at %s; unpublish it before unstaging", volumeId, published);
    }
    attachments.unmountAll(stagingPath, "staging path", volumeId, devices);
    try {
      attachments.host().loops().detach(device.get());
    } catch (DetachPendingException e) {
      throw CsiException.failedPrecondition(
          "volume %s is unmounted from %s but its device is not detached yet: %s",
          volumeId, stagingPath, e.getMessage());
    }
    log.info("unstaged volume {} from {}", volumeId, stagingPath);
  }
}
