package io.thinvol.driver.core;

import io.thinvol.driver.host.HostCommandException;
import io.thinvol.driver.host.HostTools;
import io.thinvol.driver.host.LoopDevice;
import io.thinvol.driver.host.MountEntry;
import io.thinvol.driver.host.MountTable;
import io.thinvol.driver.host.Mounts;
import io.thinvol.driver.store.AccessType;
import io.thinvol.driver.store.DataLayout;
import io.thinvol.driver.store.Ids;
import io.thinvol.driver.store.VolumeRecord;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * What the node services share: a volume's loop devices and which mounts are its own. Loop devices
 * are those backed by the volume's image (by device and inode), mounts those of one of these
 * devices, so a restarted driver in a new mount namespace recognises everything it attached.
 */
final class NodeAttachments {

  private final DataLayout layout;
  private final VolumeManager volumes;
  private final HostTools host;

  NodeAttachments(DataLayout layout, VolumeManager volumes, HostTools host) {
    this.layout = layout;
    this.volumes = volumes;
    this.host = host;
  }

  HostTools host() {
    return host;
  }

  VolumeManager volumes() {
    return volumes;
  }

  Path image(String volumeId) {
    return layout.volumeImage(volumeId);
  }

  /** The volume, or empty when this node holds no volume with this id (any more). */
  Optional<VolumeRecord> known(String volumeId) {
    return Ids.isVolumeId(volumeId) ? volumes.catalog().volume(volumeId) : Optional.empty();
  }

  /** Every loop device of the volume, read-only ones included. */
  List<LoopDevice> devices(String volumeId) {
    return host.loops().of(image(volumeId));
  }

  /**
   * A mount at a path the CO names for a volume this node does not hold: it cannot be told to be
   * the volume's, so it is left alone and the CO told how to proceed.
   */
  static CsiException unknownVolumeMounted(String volumeId, Path path, MountEntry mount) {
    return CsiException.notFound(
        "volume %s does not exist on this node, but %s holds a mount of %s that is not one of this"
            + " driver's volumes; it is left alone: unmount it by hand if it is stale",
        volumeId, path, mount.source());
  }

  VolumeRecord requireUsable(String volumeId, NodeManager.Usage usage) {
    VolumeRecord volume = volumes.requireVolume(volumeId);
    if (volume.secondary()) {
      throw CsiException.failedPrecondition(
          "volume %s is a %s of replication %s: only the primary copy may be staged or published."
              + " The claim is being failed over or switched over; once it is bound to the"
              + " promoted copy its pod starts there (kubectl describe volumereplication)",
          volumeId,
          volume.replication().stale() ? "demoted former primary (stale copy)" : "replica",
          volume.replication().id());
    }
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
    if (!Files.exists(image(volumeId))) {
      throw CsiException.failedPrecondition(
          "the image file of volume %s is missing (%s)", volumeId, image(volumeId));
    }
    return volume;
  }

  /**
   * Runs {@code body} with the volume's loop device, attaching it if needed. When the body fails, a
   * device this call attached is detached again, so a refused call leaves nothing behind.
   */
  void withDevice(VolumeRecord volume, Consumer<LoopDevice> body) {
    withDevice(volume, (device, attachedNow) -> body.accept(device));
  }

  /**
   * {@link #withDevice(VolumeRecord, Consumer)}, telling the body whether this call attached the
   * device (so nothing can have been written through it yet).
   */
  void withDevice(VolumeRecord volume, BiConsumer<LoopDevice, Boolean> body) {
    Path image = image(volume.id());
    Optional<LoopDevice> attached = host.loops().find(image);
    LoopDevice device =
        attached.orElseGet(
            () -> host.loops().attachUnattached(image, VolumeModifier.ioModeOf(volume)));
    try {
      VolumeModifier.align(host, volume, List.of(device));
      body.accept(device, attached.isEmpty());
    } catch (RuntimeException e) {
      if (attached.isEmpty() && mountPoints(host.mountTable(), List.of(device)).isEmpty()) {
        try {
          host.loops().detach(device);
        } catch (RuntimeException detachFailure) {
          e.addSuppressed(detachFailure);
        }
      }
      throw e;
    }
  }

  /** The mount options a stage asks for: a reader-only access mode mounts read-only. */
  static List<String> stagingFlags(VolumeRecord volume, NodeManager.Usage usage) {
    if (volume.accessType() != AccessType.MOUNT || !usage.readerOnly()) {
      return usage.mountFlags();
    }
    List<String> flags = new ArrayList<>(usage.mountFlags());
    flags.add("ro");
    return flags;
  }

  /** Whether a mount is the volume's filesystem or one of its device nodes. */
  static boolean belongsTo(MountEntry entry, List<LoopDevice> devices, MountTable table) {
    return devices.stream()
        .anyMatch(
            device ->
                entry.majorMinor().equals(device.majorMinor())
                    || table.ofDeviceNode(device).contains(entry));
  }

  /**
   * Where the devices' filesystems and nodes are mounted, each path once: propagation can list one
   * mount point several times (a kubelet dir bound onto itself under a shared parent).
   */
  static List<Path> mountPoints(MountTable table, List<LoopDevice> devices) {
    Set<Path> points = new LinkedHashSet<>();
    for (LoopDevice device : devices) {
      table.ofDevice(device).forEach(e -> points.add(e.mountPoint()));
      table.ofDeviceNode(device).forEach(e -> points.add(e.mountPoint()));
    }
    return new ArrayList<>(points);
  }

  /**
   * Unmounts the volume's mounts at {@code path} until it is no longer a mount point: stacked
   * publishes, or one left by an unmount that did not reach a propagated copy. A mount of anything
   * else is left alone and refused; {@code role} names the path in that message ("target").
   */
  void unmountAll(Path path, String role, String volumeId, List<LoopDevice> devices) {
    for (int i = 0; i < Mounts.MAX_STACKED; i++) {
      MountTable table = host.mountTable();
      Optional<MountEntry> present = table.at(path);
      if (present.isEmpty()) {
        return;
      }
      if (!belongsTo(present.get(), devices, table)) {
        throw CsiException.failedPrecondition(
            "%s %s holds a mount of %s, not volume %s; leaving it alone",
            role, path, present.get().source(), volumeId);
      }
      unmount(path, volumeId);
    }
    if (host.mountTable().at(path).isPresent()) {
      throw CsiException.failedPrecondition(
          "%s %s is still a mount point after %d unmounts; see what is mounted there",
          role, path, Mounts.MAX_STACKED);
    }
  }

  private void unmount(Path path, String volumeId) {
    try {
      host.mounts().unmount(path);
    } catch (HostCommandException e) {
      if (e.isBusy()) {
        throw CsiException.failedPrecondition(
            "%s (volume %s) is busy: a process still uses it; %s", path, volumeId, e.getMessage());
      }
      throw e;
    }
  }
}
