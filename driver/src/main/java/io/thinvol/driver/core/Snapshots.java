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
      try (OperationLocks.Held held =
          locks.tryAcquire(sourceVolumeId, "volume " + sourceVolumeId)) {
        VolumeRecord source = volumes.requireVolume(sourceVolumeId);
        String id = Ids.newSnapshotId();
        Path assembled = DataLayout.creating(layout.snapshotDir(id));
        // A copy allocates at most what the source occupies; it keeps what it really took.
        try (CapacityGauge.Reservation reserved =
            capacity.reserveSnapshot(
                host.stats().allocatedBytes(layout.volumeImage(source.id())))) {
          Files.createDirectories(assembled);
          Boolean formatted =
              source.accessType() == AccessType.MOUNT
                  ? VolumeFilesystems.wasFormatted(
                      source.formatted(), layout.volumeImage(source.id()), host)
                  : null;
          copier.copy(source, assembled.resolve(DataLayout.IMAGE), budget);
          SnapshotRecord record =
              new SnapshotRecord(
                  VolumeRecord.SCHEMA_VERSION,
                  id,
                  name,
                  source.id(),
                  source.sizeBytes(),
                  source.accessType(),
                  source.fsType(),
                  Instant.now().toString(),
                  formatted);
          Catalog.writeMeta(assembled, record);
          long allocated = host.stats().allocatedBytes(assembled.resolve(DataLayout.IMAGE));
          catalog.publish(record, assembled);
          reserved.keepSnapshot(id, allocated);
          log.info("created snapshot {} ('{}') of volume {}", id, name, source.id());
          return record;
        } catch (IOException | RuntimeException e) {
          throw Assembling.abandon(assembled, "snapshot '" + name + "'", e);
        }
      }
    }
  }

  /** Deletes a snapshot; an unknown id is already deleted. */
  public void delete(String snapshotId) {
    if (!Ids.isSnapshotId(snapshotId)) {
      return;
    }
    try (OperationLocks.Held held = locks.tryAcquire(snapshotId, "snapshot " + snapshotId)) {
      Optional<SnapshotRecord> record = catalog.snapshot(snapshotId);
      if (record.isPresent()) {
        catalog.removeSnapshot(record.get());
        capacity.snapshotDeleted(snapshotId);
        log.info("deleted snapshot {} ('{}')", snapshotId, record.get().name());
      }
    } catch (IOException e) {
      throw CsiException.internal(
          "cannot delete snapshot " + snapshotId + ": " + e.getMessage(), e);
    }
  }
}
