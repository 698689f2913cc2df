package io.thinvol.driver.core;

import io.thinvol.driver.host.FsType;
import io.thinvol.driver.host.HostTools;
import io.thinvol.driver.host.LoopDevice;
import io.thinvol.driver.host.MountEntry;
import io.thinvol.driver.host.MountTable;
import io.thinvol.driver.host.Privileges;
import io.thinvol.driver.store.VolumeRecord;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The filesystem inside a mount volume: created on first stage, mounted at the staging path, grown
 * when the image grew. Only blank devices are formatted; a device holding anything else than the
 * volume's filesystem is refused, never overwritten.
 */
final class VolumeFilesystems {

  private final VolumeManager volumes;
  private final HostTools host;

  VolumeFilesystems(VolumeManager volumes, HostTools host) {
    this.volumes = volumes;
    this.host = host;
  }

  /**
   * Mounts the volume's filesystem at the staging path, creating it on first use. A pending growth
   * of ext4 is done before mounting (offline, no special privilege needed); xfs can only grow
   * mounted.
   */
  MountTable ensureMounted(
      VolumeRecord volume, LoopDevice device, Path stagingPath, List<String> flags) {
    MountTable table = host.mountTable();
    Optional<MountEntry> present = table.at(stagingPath);
    if (present.isPresent()) {
      if (!present.get().majorMinor().equals(device.majorMinor())) {
        throw CsiException.alreadyExists(
            "staging path %s already has another device mounted (%s)",
            stagingPath, present.get().source());
      }
    } else {
      FsType fs = fsType(volume);
      Optional<String> found = host.filesystems().probe(device);
      if (found.isEmpty()) {
        host.filesystems().format(device.path(), fs);
      } else if (!found.get().equals(fs.id())) {
        throw CsiException.failedPrecondition(
            "volume %s should hold %s but its device holds %s; refusing to mount or format it",
            volume.id(), fs.id(), found.get());
      } else if (fs == FsType.EXT4 && volume.growFilesystemPending()) {
        host.loops().refreshSize(device);
        host.filesystems().growExt4Offline(device.path());
        volume = recordGrown(volume);
      }
      try {
        Files.createDirectories(stagingPath);
      } catch (IOException e) {
        throw CsiException.internal("cannot create " + stagingPath + ": " + e.getMessage(), e);
      }
      List<String> options = new ArrayList<>(fs.requiredMountOptions());
      options.addAll(flags);
      host.mounts().mount(device.path(), stagingPath, fs.id(), options);
      table = host.mountTable();
    }
    if (volume.growFilesystemPending() && !flags.contains("ro")) { // xfs grows only read-write
      grow(volume, device, stagingPath);
    }
    return table;
  }

  /** Grows the mounted filesystem to fill its (already refreshed) device. */
  void grow(VolumeRecord volume, LoopDevice device, Path mountPoint) {
    FsType fs = fsType(volume);
    if (fs == FsType.EXT4 && !Privileges.canResizeExt4Online()) {
      throw CsiException.failedPrecondition(
          "growing the mounted ext4 filesystem of volume %s needs CAP_SYS_RESOURCE, which the"
              + " driver lacks; run the driver container privileged, or unstage and stage the"
              + " volume again to grow it offline",
          volume.id());
    }
    host.loops().refreshSize(device);
    host.filesystems().growOnline(fs, device.path(), mountPoint);
    recordGrown(volume);
  }

  private VolumeRecord recordGrown(VolumeRecord volume) {
    VolumeRecord current = volumes.requireVolume(volume.id());
    if (!current.growFilesystemPending()) {
      return current;
    }
    VolumeRecord grown = current.withGrowFilesystemPending(false);
    try {
      volumes.catalog().update(grown);
    } catch (IOException e) {
      throw CsiException.internal("cannot record the grown filesystem of " + volume.id(), e);
    }
    return grown;
  }

  private static FsType fsType(VolumeRecord volume) {
    return FsType.parse(volume.fsType())
        .orElseThrow(
            () ->
                CsiException.internal(
                    "volume " + volume.id() + " has an unknown filesystem " + volume.fsType(),
                    null));
  }
}
