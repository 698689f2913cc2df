package io.thinvol.driver.core;

import io.thinvol.driver.host.HostTools;
import io.thinvol.driver.store.AccessType;
import io.thinvol.driver.store.Catalog;
import io.thinvol.driver.store.DataLayout;
import io.thinvol.driver.store.Ids;
import io.thinvol.driver.store.SnapshotRecord;
import io.thinvol.driver.store.VolumeRecord;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Snapshots: point-in-time copies of a volume's image, under the data dir's snapshots/. */
public final class Snapshots {

  private static final Logger log = LoggerFactory.getLogger(Snapshots.class);
  // A repeated CreateSnapshot for a name waits for the first and gets its answer.
  private static final Duration NAME_WAIT = Duration.ofSeconds(30);

  private final DataLayout layout;
  private final Catalog catalog;
  private final HostTools host;
  private final OperationLocks locks;
  private final VolumeManager volumes;
  private final ImageCopier copier;
  private final CapacityGauge capacity;

  Snapshots(
      DataLayout layout,
      Catalog catalog,
      HostTools host,
      OperationLocks locks,
      VolumeManager volumes,
      ImageCopier copier,
      CapacityGauge capacity) {
    this.layout = layout;
    this.catalog = catalog;
    this.host = host;
    this.locks = locks;
    this.volumes = volumes;
    this.copier = copier;
    this.capacity = capacity;
  }

  /** Takes a snapshot of a volume; the copy must fit in {@code budget} (the caller's deadline). */
  public SnapshotRecord create(String name, String sourceVolumeId, Duration budget) {
    try (OperationLocks.Held nameLock =
        locks.acquire("name:snapshot:" + name, "snapshot name '" + name + "'", NAME_WAIT)) {
      Optional<SnapshotRecord> existing = catalog.snapshotByName(name);
      if (existing.isPresent()) {
        if (!existing.get().sourceVolumeId().equals(sourceVolumeId)) {
          throw CsiException.alreadyExists(
              "snapshot '%s' already exists as %s of volume %s, not of %s",
              name, existing.get().id(), existing.get().sourceVolumeId(), sourceVolumeId);
        }
        return existing.get();
      }
      try (OperationLocks.Held held = locks.tryAcquire(sourceVolumeId, "volume " + sourceVolumeId);
          Assembly assembly = begin(volumes.requireVolume(sourceVolumeId), name, null)) {
        copier.copy(assembly.source(), assembly.image(), budget);
        return assembly.publish(Instant.now());
      }
    }
  }

  /**
   * Starts a snapshot of {@code source} (whose lock the caller holds): its private directory and
   * its room on the data dir. The caller copies the image into {@link Assembly#image()} and
   * publishes it; closing an assembly that was not published removes it.
   */
  Assembly begin(VolumeRecord source, String name, String groupSnapshotId) {
    Assembly assembly = new Assembly(source, name, groupSnapshotId);
    try {
      // A copy allocates at most what the source occupies; it keeps what it really took.
      assembly.reserved =
          capacity.reserveSnapshot(host.stats().allocatedBytes(layout.volumeImage(source.id())));
      Files.createDirectories(assembly.dir);
      assembly.formatted =
          source.accessType() == AccessType.MOUNT
              ? VolumeFilesystems.wasFormatted(
                  source.formatted(), layout.volumeImage(source.id()), host)
              : null;
      return assembly;
    } catch (IOException | RuntimeException e) {
      throw assembly.abandon(e);
    }
  }

  /** A snapshot being assembled in its private directory. */
  final class Assembly implements AutoCloseable {

    private final VolumeRecord source;
    private final String name;
    private final String groupSnapshotId;
    private final String id = Ids.newSnapshotId();
    private final Path dir = DataLayout.creating(layout.snapshotDir(id));
    private CapacityGauge.Reservation reserved;
    private Boolean formatted;
    private boolean published;

    private Assembly(VolumeRecord source, String name, String groupSnapshotId) {
      this.source = source;
      this.name = name;
      this.groupSnapshotId = groupSnapshotId;
    }

    VolumeRecord source() {
      return source;
    }

    Path image() {
      return dir.resolve(DataLayout.IMAGE);
    }

    /** Records the copied image, cut at {@code cutAt}, and publishes it under its final name. */
    SnapshotRecord publish(Instant cutAt) {
      try {
        SnapshotRecord record =
            new SnapshotRecord(
                VolumeRecord.SCHEMA_VERSION,
                id,
                name,
                source.id(),
                source.sizeBytes(),
                source.accessType(),
                source.fsType(),
                cutAt.toString(),
                formatted,
                groupSnapshotId);
        Catalog.writeMeta(dir, record);
        long allocated = host.stats().allocatedBytes(image());
        catalog.publish(record, dir);
        published = true;
        reserved.keepSnapshot(id, allocated);
        log.info("created snapshot {} ('{}') of volume {}", id, name, source.id());
        return record;
      } catch (IOException | RuntimeException e) {
        throw abandon(e);
      }
    }

    private CsiException abandon(Exception e) {
      close();
      return Assembling.asCsi("snapshot '" + name + "'", e);
    }

    @Override
    public void close() {
      if (reserved != null) {
        reserved.close();
        reserved = null;
      }
      if (!published) {
        Assembling.remove(dir);
      }
    }
  }

  /**
   * Deletes a snapshot; an unknown id is already deleted. A member of a group snapshot goes only
   * with its group (the spec's "snapshot is part of a group" row).
   */
  public void delete(String snapshotId) {
    if (!Ids.isSnapshotId(snapshotId)) {
      return;
    }
    try (OperationLocks.Held held = locks.tryAcquire(snapshotId, "snapshot " + snapshotId)) {
      Optional<SnapshotRecord> record = catalog.snapshot(snapshotId);
      if (record.isPresent() && record.get().groupSnapshotId() != null) {
        throw CsiException.invalidArgument(
            "snapshot %s is part of the group snapshot %s and cannot be deleted on its own;"
                + " delete the group (DeleteVolumeGroupSnapshot, or its VolumeGroupSnapshot)",
            snapshotId, record.get().groupSnapshotId());
      }
      record.ifPresent(this::remove);
    }
  }

  /**
   * Deletes the snapshot named {@code name}, once a CreateSnapshot of that name in flight ended.
   *
   * @return whether there was one
   */
  public boolean deleteByName(String name, String sourceVolumeId) {
    try (OperationLocks.Held nameLock =
        locks.acquire("name:snapshot:" + name, "snapshot name '" + name + "'", NAME_WAIT)) {
      Optional<SnapshotRecord> named = catalog.snapshotByName(name);
      if (named.isEmpty()) {
        return false;
      }
      if (!named.get().sourceVolumeId().equals(sourceVolumeId)) {
        throw CsiException.failedPrecondition(
            "snapshot '%s' (%s) is of volume %s, not of %s: left as it is",
            name, named.get().id(), named.get().sourceVolumeId(), sourceVolumeId);
      }
      delete(named.get().id());
      return true;
    }
  }

  /** Removes a snapshot whose lock the caller holds, or that no call can reach yet. */
  void remove(SnapshotRecord record) {
    try {
      catalog.removeSnapshot(record);
    } catch (IOException e) {
      throw CsiException.internal(
          "cannot delete snapshot " + record.id() + ": " + e.getMessage(), e);
    }
    capacity.snapshotDeleted(record.id());
    log.info("deleted snapshot {} ('{}')", record.id(), record.name());
  }
}
