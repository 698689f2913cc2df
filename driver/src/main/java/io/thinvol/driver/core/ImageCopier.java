package io.thinvol.driver.core;

import io.grpc.Status;
import io.thinvol.driver.config.DriverConfig;
import io.thinvol.driver.host.HostCommandException;
import io.thinvol.driver.host.HostTools;
import io.thinvol.driver.host.LoopDevice;
import io.thinvol.driver.host.MountEntry;
import io.thinvol.driver.host.MountTable;
import io.thinvol.driver.store.AccessType;
import io.thinvol.driver.store.DataLayout;
import io.thinvol.driver.store.VolumeRecord;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Point-in-time, durable copies of a volume's image, for snapshots and clones.
 *
 * <ul>
 *   <li>Where the data dir's filesystem has reflinks (xfs with {@code reflink=1}, btrfs), the copy
 *       is a reflink: one ioctl, milliseconds whatever the size, atomic against writes.
 *   <li>Elsewhere it is a full sparse copy. A volume attached read-write is only copied if its
 *       filesystem is mounted here, frozen for the copy; anything else attached read-write (a block
 *       volume a pod writes to) is refused, as its copy would be torn.
 *   <li>A mounted filesystem is frozen for the copy only (a few milliseconds with reflinks), thawed
 *       before the caller's deadline, and never left frozen by a crash ({@link Freezes}).
 *   <li>The copy and its directory are fsynced before the caller may report it.
 * </ul>
 */
final class ImageCopier {

  private static final Logger log = LoggerFactory.getLogger(ImageCopier.class);
  // Kept back from the caller's budget for the thaw and the cleanup after a copy that timed out.
  private static final Duration THAW_RESERVE = Duration.ofSeconds(1);
  private static final Duration MAX_FREEZE_WAIT = Duration.ofSeconds(30);

  private final DriverConfig config;
  private final DataLayout layout;
  private final HostTools host;
  private final Freezes freezes;
  private volatile Boolean reflinks;

  ImageCopier(DriverConfig config, DataLayout layout, HostTools host, Freezes freezes) {
    this.config = config;
    this.layout = layout;
    this.host = host;
    this.freezes = freezes;
  }

  /**
   * A path that reaches the filesystem on {@code device}, if it is mounted on this node: a line of
   * the mount table whose path now leads elsewhere (a copy propagation put under another mount, a
   * mount covered by another) is no place to freeze or trim it.
   */
  Optional<Path> filesystemMount(LoopDevice device) {
    MountTable table = host.mountTable();
    return table.ofDevice(device).stream()
        .filter(entry -> "/".equals(entry.root()))
        .map(MountEntry::mountPoint)
        .filter(
            path ->
                table.at(path).filter(e -> e.majorMinor().equals(device.majorMinor())).isPresent())
        .findFirst();
  }

  /** One image to copy: a volume whose lock the caller holds, and where its copy goes. */
  record Copy(VolumeRecord volume, Path target) {}

  /**
   * Copies the image of {@code volume} (whose lock the caller holds) to {@code target} within
   * {@code budget}; a copy that cannot finish in time is killed and DEADLINE_EXCEEDED is thrown
   * (the caller removes the partial file).
   */
  void copy(VolumeRecord volume, Path target, Duration budget) {
    copyTogether(List.of(new Copy(volume, target)), budget);
  }

  /**
   * Copies several images at one point in time (a group snapshot): every mounted filesystem among
   * them is frozen before the first copy and thawed after the last, so no write reaches any of them
   * in between. One volume attached without a filesystem to freeze (a block volume in use) is
   * allowed where copies are reflinks: it is copied last, atomically, while the others cannot
   * change. Two such volumes could change between their copies, so they are refused.
   */
  void copyTogether(List<Copy> copies, Duration budget) {
    copyAll(copies, budget);
    copies.forEach(copy -> host.files().syncWithDirectory(copy.target()));
  }

  /**
   * As {@link #copy}, but not synced: the caller completes the copy (a delta's changes applied onto
   * a copy of its base) and syncs it with them.
   */
  void copyToComplete(VolumeRecord volume, Path target, Duration budget) {
    copyAll(List.of(new Copy(volume, target)), budget);
  }

  private void copyAll(List<Copy> copies, Duration budget) {
    long deadline = System.nanoTime() + budget.toNanos();
    boolean instant = reflinks(); // known before any freeze, which it must not lengthen
    List<Copy> ordered = new ArrayList<>();
    Map<String, Path> mounts = new LinkedHashMap<>();
    Copy live = null;
    for (Copy copy : copies) {
      VolumeRecord volume = copy.volume();
      Optional<LoopDevice> attached = host.loops().find(layout.volumeImage(volume.id()));
      Optional<Path> mounted =
          attached
              .filter(d -> volume.accessType() == AccessType.MOUNT)
              .flatMap(this::filesystemMount);
      if (attached.isPresent() && mounted.isEmpty()) {
        requireReflinks(instant, volume, attached.get());
        if (live != null) {
          throw CsiException.failedPrecondition(
              "volumes %s and %s are both attached read-write on node %s without a filesystem the"
                  + " driver can freeze (block volumes in use), so their copies cannot be taken at"
                  + " one point in time; stop the workloads of all but one of them, or snapshot"
                  + " them one by one",
              live.volume().id(), volume.id(), config.nodeId());
        }
        live = copy; // a reflink is atomic against its writes
      } else {
        ordered.add(copy);
        mounted.ifPresent(mountPoint -> mounts.put(volume.id(), mountPoint));
      }
    }
    if (live != null) {
      ordered.add(live);
    }
    // Written out before the freeze, which then has little left to flush while writes wait.
    mounts.forEach(
        (id, mountPoint) ->
            host.filesystems().sync(mountPoint, freezeWait(remaining("volume " + id, deadline))));
    try (Freezes.Frozen frozen =
        freezes.freezeAll(mounts, () -> freezeWait(remaining("the volumes", deadline)))) {
      for (Copy copy : ordered) {
        copyWithin(
            "volume " + copy.volume().id(),
            layout.volumeImage(copy.volume().id()),
            copy.target(),
            deadline);
      }
    }
  }

  private void requireReflinks(boolean instant, VolumeRecord volume, LoopDevice attached) {
    if (!instant) {
      throw CsiException.failedPrecondition(
          "volume %s is attached read-write on node %s (%s) without a filesystem the driver can"
              + " freeze, and the data dir %s has no reflinks, so a copy would be torn by"
              + " concurrent writes; stop the workload and unstage the volume first, or put the"
              + " data dir on xfs (mkfs.xfs -m reflink=1) or btrfs, where copies are instant",
          volume.id(), config.nodeId(), attached.path(), layout.root());
    }
  }

  /** Copies a snapshot's image (never attached, never written) to {@code target}. */
  void copySnapshot(String snapshotId, Path target, Duration budget) {
    copyWithin(
        "snapshot " + snapshotId,
        layout.snapshotImage(snapshotId),
        target,
        System.nanoTime() + budget.toNanos());
    host.files().syncWithDirectory(target);
  }

  private void copyWithin(String what, Path from, Path target, long deadline) {
    Duration timeout = remaining(what, deadline);
    try {
      if (reflinks()) {
        host.files().reflink(from, target, timeout);
      } else {
        host.files().copySparse(from, target, timeout);
      }
    } catch (HostCommandException e) {
      if (e.isTimeout()) {
        throw tooSlow(what, timeout);
      }
      throw e;
    }
  }

  /** Whether copies are reflinks here (probed once): otherwise they are full sparse copies. */
  boolean reflinks() {
    Boolean known = reflinks;
    if (known == null) {
      known = host.files().supportsReflink(layout.root());
      log.info(
          "the data dir {} {}",
          layout.root(),
          known
              ? "has reflinks: snapshots and clones are instant"
              : "has no reflinks: snapshots and clones are full copies");
      reflinks = known;
    }
    return known;
  }

  private static Duration remaining(String what, long deadline) {
    long nanos = deadline - System.nanoTime() - THAW_RESERVE.toNanos();
    if (nanos <= 0) {
      throw tooSlow(what, Duration.ZERO);
    }
    return Duration.ofNanos(nanos);
  }

  private static Duration freezeWait(Duration timeout) {
    return timeout.compareTo(MAX_FREEZE_WAIT) < 0 ? timeout : MAX_FREEZE_WAIT;
  }

  private static CsiException tooSlow(String what, Duration allowed) {
    return new CsiException(
        Status.Code.DEADLINE_EXCEEDED,
        String.format(
            "copying the image of %s did not finish in the %d ms the call's deadline left;"
                + " the partial copy was removed and the filesystem is not frozen; retry with a"
                + " longer timeout (csi-snapshotter/csi-provisioner --timeout), or put the data dir"
                + " on a filesystem with reflinks, where copies are instant",
            what, allowed.toMillis()));
  }
}
