package io.thinvol.driver.core;

import static io.thinvol.driver.core.NodeAttachments.belongsTo;

import io.thinvol.driver.host.FsUsage;
import io.thinvol.driver.host.HostTools;
import io.thinvol.driver.host.LoopDevice;
import io.thinvol.driver.host.MountEntry;
import io.thinvol.driver.host.MountTable;
import io.thinvol.driver.store.AccessType;
import io.thinvol.driver.store.VolumeRecord;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/** NodeGetVolumeStats and NodeExpandVolume: what a published volume holds, and growing it. */
final class NodeVolumeStats {

  private final NodeAttachments attachments;
  private final VolumeFilesystems filesystems;
  private final HostTools host;

  NodeVolumeStats(NodeAttachments attachments, VolumeFilesystems filesystems) {
    this.attachments = attachments;
    this.filesystems = filesystems;
    this.host = attachments.host();
  }

  NodeManager.Stats stats(String volumeId, Path volumePath) {
    VolumeRecord volume = attachments.volumes().requireVolume(volumeId);
    Path image = attachments.image(volumeId);
    if (!Files.exists(image)) {
      return new NodeManager.Stats(null, 0, "the image file " + image + " is missing");
    }
    List<LoopDevice> devices = host.loops().of(image);
    MountTable table = host.mountTable();
    Optional<MountEntry> present = table.at(volumePath);
    if (present.isEmpty() || !belongsTo(present.get(), devices, table)) {
      throw CsiException.notFound("volume %s is not available at %s", volumeId, volumePath);
    }
    if (volume.accessType() == AccessType.BLOCK) {
      return new NodeManager.Stats(null, host.loops().sizeBytes(devices.get(0)), null);
    }
    FsUsage usage = host.stats().filesystem(volumePath);
    String problem =
        present.get().filesystemReadOnly() && !present.get().readOnly()
            ? "the filesystem went read-only (the kernel does that after an I/O or consistency"
                + " error); check the node's kernel log and repair it while unstaged"
            : null;
    return new NodeManager.Stats(usage, host.loops().sizeBytes(devices.get(0)), problem);
  }

  /** The caller holds the volume's lock. See {@link NodeManager#expand}. */
  long expand(
      String volumeId, Path volumePath, long requiredBytes, long limitBytes, boolean growImage) {
    VolumeManager volumes = attachments.volumes();
    VolumeRecord volume = volumes.requireVolume(volumeId);
    if (requiredBytes > volume.sizeBytes()) {
      if (!growImage) {
        throw CsiException.outOfRange(
            "volume %s is %d bytes; ControllerExpandVolume must grow it to %d first",
            volumeId, volume.sizeBytes(), requiredBytes);
      }
      volume = volumes.growImage(volumeId, requiredBytes, limitBytes);
    }
    List<LoopDevice> devices = attachments.devices(volumeId);
    LoopDevice device =
        devices.stream()
            .filter(d -> !d.readOnly())
            .findFirst()
            .orElseThrow(
                () ->
                    CsiException.failedPrecondition(
                        "volume %s is not staged on this node; it is grown when next staged",
                        volumeId));
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
