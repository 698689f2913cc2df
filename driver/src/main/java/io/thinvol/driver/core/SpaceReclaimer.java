package io.thinvol.driver.core;

import io.grpc.Status;
import io.thinvol.driver.host.DetachPendingException;
import io.thinvol.driver.host.FsType;
import io.thinvol.driver.host.HostTools;
import io.thinvol.driver.host.LoopDevice;
import io.thinvol.driver.host.MountTable;
import io.thinvol.driver.store.AccessType;
import io.thinvol.driver.store.Catalog;
import io.thinvol.driver.store.DataLayout;
import io.thinvol.driver.store.Ids;
import io.thinvol.driver.store.VolumeRecord;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gives the blocks a volume no longer uses back to the data dir, and says how many: the image's
 * allocated bytes ({@code st_blocks * 512}) before and after. Never discards anything that may hold
 * data: filesystems are trimmed (they discard only their free blocks), block images lose only
 * all-zero ranges, and a block volume that is attached (a pod may be writing) is refused.
 */
public final class SpaceReclaimer {

  private static final Logger log = LoggerFactory.getLogger(SpaceReclaimer.class);

  /** Bytes the image occupied before and after. */
  public record Usage(long before, long after) {
    public long reclaimed() {
      return before - after;
    }
  }

  private final DataLayout layout;
  private final VolumeManager volumes;
  private final HostTools host;
  private final OperationLocks locks;
  private volatile Boolean holesPossible;

  public SpaceReclaimer(
      DataLayout layout, VolumeManager volumes, HostTools host, OperationLocks locks) {
    this.layout = layout;
    this.volumes = volumes;
    this.host = host;
    this.locks = locks;
  }

  /**
   * NodeReclaimSpace: trims the volume's filesystem where it is mounted on this node. The staging
   * path or volume path tell where; without them the driver finds the mount itself.
   */
  public Usage onNode(
      String volumeId,
      Path stagingPath,
      Path volumePath,
      boolean blockRequested,
      Duration timeout) {
    requireHolePunching();
    try (OperationLocks.Held held = locks.tryAcquire(volumeId, "volume " + volumeId)) {
      VolumeRecord volume = volumes.requireVolume(volumeId);
      if (volume.accessType() == AccessType.BLOCK || blockRequested) {
        throw new CsiException(
            Status.Code.UNIMPLEMENTED,
            "volume "
                + volumeId
                + " is a block volume: while it is in use only the application knows which"
                + " blocks are free; ControllerReclaimSpace reclaims its all-zero ranges once no"
                + " pod uses it");
      }
      Path mountPoint = mountPoint(volume, stagingPath, volumePath);
      FsType fs = VolumeFilesystems.fsType(volume);
      return measured(volume, () -> trim(fs, mountPoint, timeout));
    }
  }

  /**
   * ControllerReclaimSpace: a volume not in use is reclaimed offline (filesystems are mounted
   * privately and trimmed, block images lose their all-zero ranges); a staged volume is refused,
   * never attached a second time.
   */
  public Usage offline(String volumeId, Duration timeout) {
    requireHolePunching();
    try (OperationLocks.Held held = locks.tryAcquire(volumeId, "volume " + volumeId)) {
      VolumeRecord volume = volumes.requireVolume(volumeId);
      Path image = layout.volumeImage(volumeId);
      Optional<LoopDevice> attached = host.loops().find(image);
      if (attached.isPresent() && volume.accessType() == AccessType.BLOCK) {
        throw new CsiException(
            Status.Code.UNIMPLEMENTED,
            "block volume "
                + volumeId
                + " is attached on this node and may be written to; its zero ranges are only"
                + " reclaimed while no pod uses it");
      }
      if (attached.isPresent()) {
        // whoever staged it (this driver or one before a restart), a pod may use it
        throw CsiException.failedPrecondition(
            "volume %s is staged on this node (%s); ControllerReclaimSpace reclaims volumes no"
                + " pod uses: NodeReclaimSpace trims it where it is mounted (ReclaimSpaceJob mode"
                + " Auto or NodeOnly)",
            volumeId, attached.get().path());
      }
      if (volume.accessType() == AccessType.BLOCK) {
        return measured(volume, () -> host.discards().digHoles(image, timeout));
      }
      return measured(volume, () -> trimPrivately(volume, image, timeout));
    }
  }

  /**
   * Releases what an interrupted offline reclaim left: its private mounts and the loop devices it
   * attached for them. Runs at start, before serving.
   */
  public void recover() throws IOException {
    Path base = privateMounts();
    if (!Files.isDirectory(base)) {
      return;
    }
    for (Path mountPoint : host.mountTable().mountPointsUnder(base)) {
      log.info("unmounting {} left by an interrupted reclaim", mountPoint);
      host.mounts().unmountAll(mountPoint);
    }
    try (Stream<Path> dirs = Files.list(base)) {
      for (Path dir : dirs.toList()) {
        String volumeId = dir.getFileName().toString();
        if (Ids.isVolumeId(volumeId)) {
          host.loops()
              .find(layout.volumeImage(volumeId))
              .filter(this::unused)
              .ifPresent(this::detachLeftover);
        }
      }
    }
    Catalog.removeTree(base);
  }

  /** A device still held open is left to the kernel, which detaches it when it is closed. */
  private void detachLeftover(LoopDevice device) {
    try {
      host.loops().detach(device);
    } catch (DetachPendingException e) {
      log.warn("leftover of an interrupted reclaim: {}", e.getMessage());
    }
  }

  private boolean unused(LoopDevice device) {
    MountTable table = host.mountTable();
    return table.ofDevice(device).isEmpty() && table.ofDeviceNode(device).isEmpty();
  }

  private Path mountPoint(VolumeRecord volume, Path stagingPath, Path volumePath) {
    LoopDevice device =
        host.loops()
            .find(layout.volumeImage(volume.id()))
            .orElseThrow(
                () ->
                    CsiException.failedPrecondition(
                        "volume %s is not staged on this node; ControllerReclaimSpace reclaims"
                            + " volumes that are not in use",
                        volume.id()));
    MountTable table = host.mountTable();
    for (Path candidate : new Path[] {stagingPath, volumePath}) {
      if (candidate != null
          && table
              .at(candidate)
              .filter(e -> e.majorMinor().equals(device.majorMinor()))
              .isPresent()) {
        return candidate;
      }
    }
    return volumes
        .mountedAt(volume)
        .orElseThrow(
            () ->
                CsiException.failedPrecondition(
                    "volume %s is attached but its filesystem is not mounted on this node",
                    volume.id()));
  }

  /**
   * Commits the journal first, so blocks freed by recent deletes are free on disk and can be
   * trimmed; the pod's dirty data is left to the kernel's writeback, as a trim does not need it.
   */
  private void trim(FsType fs, Path mountPoint, Duration timeout) {
    host.filesystems().commitJournal(fs, mountPoint, timeout);
    host.discards().trim(mountPoint, timeout);
  }

  private void trimPrivately(VolumeRecord volume, Path image, Duration timeout) {
    LoopDevice device = host.loops().attach(image);
    Path mountPoint = privateMounts().resolve(volume.id());
    try {
      Optional<String> found = host.filesystems().probe(device);
      if (found.isEmpty()) {
        return; // never formatted: nothing was ever written, so nothing to give back
      }
      FsType fs = VolumeFilesystems.fsType(volume);
      if (!found.get().equals(fs.id())) {
        throw CsiException.failedPrecondition(
            "volume %s should hold %s but its device holds %s; not touching it",
            volume.id(), fs.id(), found.get());
      }
      Files.createDirectories(mountPoint);
      host.mounts().mount(device.path(), mountPoint, fs.id(), fs.requiredMountOptions());
      try {
        host.discards().trim(mountPoint, timeout);
      } finally {
        host.mounts().unmount(mountPoint);
      }
    } catch (IOException e) {
      throw CsiException.internal("cannot mount volume " + volume.id() + " privately", e);
    } finally {
      host.loops().detach(device);
      try {
        Files.deleteIfExists(mountPoint);
      } catch (IOException e) {
        log.warn("cannot remove {}: {}", mountPoint, e.getMessage());
      }
    }
  }

  private Usage measured(VolumeRecord volume, Runnable reclaim) {
    Path image = layout.volumeImage(volume.id());
    long before = host.stats().allocatedBytes(image);
    reclaim.run();
    long after = host.stats().allocatedBytes(image);
    log.info(
        "reclaimed {} bytes of volume {} ({} -> {} bytes on disk)",
        before - after,
        volume.id(),
        before,
        after);
    return new Usage(before, after);
  }

  private void requireHolePunching() {
    Boolean possible = holesPossible;
    if (possible == null) {
      possible = host.discards().canPunchHoles(layout.root());
      holesPossible = possible;
    }
    if (!possible) {
      throw new CsiException(
          Status.Code.UNIMPLEMENTED,
          "the filesystem of the data dir "
              + layout.root()
              + " cannot punch holes into files, so no space can be given back; put the data"
              + " dir on ext4, xfs or btrfs");
    }
  }

  private Path privateMounts() {
    return layout.root().resolve(".reclaim");
  }
}
