package io.thinvol.driver.core;

import io.thinvol.driver.config.DriverConfig;
import io.thinvol.driver.host.HostTools;
import io.thinvol.driver.host.LoopDevice;
import io.thinvol.driver.host.MountEntry;
import io.thinvol.driver.host.SparseFiles;
import io.thinvol.driver.store.AccessType;
import io.thinvol.driver.store.Catalog;
import io.thinvol.driver.store.ContentSource;
import io.thinvol.driver.store.DataLayout;
import io.thinvol.driver.store.Ids;
import io.thinvol.driver.store.SnapshotRecord;
import io.thinvol.driver.store.VolumeRecord;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The controller side of the sparse-file backend: volumes and snapshots as image files under the
 * data dir. Every operation on one volume, snapshot or name is serialised by {@link
 * OperationLocks}.
 */
public final class VolumeManager {

  private static final Logger log = LoggerFactory.getLogger(VolumeManager.class);
  // A repeated CreateVolume/CreateSnapshot for a name waits for the first and gets its answer.
  private static final Duration NAME_WAIT = Duration.ofSeconds(30);

  private final DriverConfig config;
  private final DataLayout layout;
  private final Catalog catalog;
  private final HostTools host;
  private final OperationLocks locks;
  private final CapacityGauge capacity;

  public VolumeManager(
      DriverConfig config,
      DataLayout layout,
      Catalog catalog,
      HostTools host,
      OperationLocks locks) {
    this.config = config;
    this.layout = layout;
    this.catalog = catalog;
    this.host = host;
    this.locks = locks;
    this.capacity = new CapacityGauge(config, layout, catalog, host);
  }

  public Catalog catalog() {
    return catalog;
  }

  public Capacity capacity() {
    return capacity.current();
  }

  public VolumeRecord create(VolumeSpec spec) {
    try (OperationLocks.Held name =
        locks.acquire(
            "name:volume:" + spec.name(), "volume name '" + spec.name() + "'", NAME_WAIT)) {
      Optional<VolumeRecord> existing = catalog.volumeByName(spec.name());
      if (existing.isPresent()) {
        return requireCompatible(existing.get(), spec);
      }
      if (catalog.volumeCount() >= config.maxVolumes()) {
        throw CsiException.resourceExhausted(
            "node %s already holds %d volumes, its maximum (--max-volumes)",
            config.nodeId(), config.maxVolumes());
      }
      return spec.source() == null ? createEmpty(spec) : createFromSource(spec);
    }
  }

  private VolumeRecord createEmpty(VolumeSpec spec) {
    long size = sizeFor(spec, 0);
    return assemble(spec, size, false, image -> allocateSparse(image, size));
  }

  private VolumeRecord createFromSource(VolumeSpec spec) {
    ContentSource source = spec.source();
    if (source.kind() == ContentSource.Kind.SNAPSHOT) {
      SnapshotRecord snapshot =
          catalog
              .snapshot(source.id())
              .orElseThrow(() -> CsiException.notFound("snapshot %s does not exist", source.id()));
      requireRestorable(
          spec, snapshot.sourceAccessType(), snapshot.fsType(), "snapshot " + snapshot.id());
      try (OperationLocks.Held held =
          locks.tryAcquire(snapshot.id(), "snapshot " + snapshot.id())) {
        long size = sizeFor(spec, snapshot.sizeBytes());
        Path from = layout.snapshotImage(snapshot.id());
        return assemble(
            spec,
            size,
            size > snapshot.sizeBytes(),
            image -> {
              host.copySparse(from, image);
              allocateSparse(image, size);
            });
      }
    }
    VolumeRecord origin =
        catalog
            .volume(source.id())
            .orElseThrow(() -> CsiException.notFound("volume %s does not exist", source.id()));
    requireRestorable(spec, origin.accessType(), origin.fsType(), "volume " + origin.id());
    try (OperationLocks.Held held = locks.tryAcquire(origin.id(), "volume " + origin.id())) {
      long size = sizeFor(spec, origin.sizeBytes());
      return assemble(
          spec,
          size,
          size > origin.sizeBytes(),
          image -> {
            copyConsistent(origin, image);
            allocateSparse(image, size);
          });
    }
  }

  private static void requireRestorable(
      VolumeSpec spec, AccessType sourceType, String sourceFs, String what) {
    if (spec.accessType() == AccessType.MOUNT && sourceType == AccessType.BLOCK) {
      throw CsiException.invalidArgument(
          "%s is a block volume; it can only be restored as a block volume", what);
    }
    if (spec.accessType() == AccessType.MOUNT && !Objects.equals(spec.fsType(), sourceFs)) {
      throw CsiException.invalidArgument(
          "%s holds an %s filesystem; cannot provide it as %s", what, sourceFs, spec.fsType());
    }
  }

  private long sizeFor(VolumeSpec spec, long sourceSize) {
    long floor = Math.max(SizePolicy.minimum(spec.accessType(), spec.fsType()), sourceSize);
    Capacity now = capacity.current();
    long size =
        SizePolicy.resolve(spec.requiredBytes(), spec.limitBytes(), floor, SizePolicy.MAXIMUM_SIZE);
    if (size > now.availableBytes()) {
      throw CsiException.resourceExhausted(
          "node %s can promise %d more bytes, %d were asked for (data dir %s, overprovision"
              + " ratio %.2f)",
          config.nodeId(), now.availableBytes(), size, layout.root(), config.overprovisionRatio());
    }
    return size;
  }

  private interface ImageWriter {
    void write(Path image) throws IOException;
  }

  private VolumeRecord assemble(VolumeSpec spec, long size, boolean grow, ImageWriter writer) {
    String id = Ids.newVolumeId();
    Path assembled = DataLayout.creating(layout.volumeDir(id));
    try {
      Files.createDirectories(assembled);
      writer.write(assembled.resolve(DataLayout.IMAGE));
      VolumeRecord record =
          new VolumeRecord(
              VolumeRecord.SCHEMA_VERSION,
              id,
              spec.name(),
              size,
              spec.accessType(),
              spec.fsType(),
              spec.source(),
              Instant.now().toString(),
              spec.parameters(),
              grow && spec.accessType() == AccessType.MOUNT);
      Catalog.writeMeta(assembled, record);
      catalog.publish(record, assembled);
      capacity.promised(size);
      log.info("created volume {} ('{}', {} bytes, {})", id, spec.name(), size, spec.accessType());
      return record;
    } catch (IOException | RuntimeException e) {
      throw abandon(assembled, "volume '" + spec.name() + "'", e);
    }
  }

  private static VolumeRecord requireCompatible(VolumeRecord existing, VolumeSpec spec) {
    String conflict = null;
    if (existing.accessType() != spec.accessType()) {
      conflict = "access type " + existing.accessType();
    } else if (!Objects.equals(existing.fsType(), spec.fsType())) {
      conflict = "filesystem " + existing.fsType();
    } else if (!Objects.equals(existing.contentSource(), spec.source())) {
      conflict = "content source " + existing.contentSource();
    } else if (spec.requiredBytes() > 0 && existing.sizeBytes() < spec.requiredBytes()
        || spec.limitBytes() > 0 && existing.sizeBytes() > spec.limitBytes()) {
      conflict = "size " + existing.sizeBytes() + " bytes";
    }
    if (conflict != null) {
      throw CsiException.alreadyExists(
          "volume '%s' already exists as %s with %s, which this request does not match",
          spec.name(), existing.id(), conflict);
    }
    return existing;
  }

  /** Deletes a volume; an unknown id is already deleted. A staged volume is refused. */
  public void delete(String volumeId) {
    if (!Ids.isVolumeId(volumeId)) {
      return; // no volume can have this id
    }
    try (OperationLocks.Held held = locks.tryAcquire(volumeId, "volume " + volumeId)) {
      Optional<VolumeRecord> record = catalog.volume(volumeId);
      if (record.isEmpty()) {
        return;
      }
      Optional<LoopDevice> attached = host.loops().find(layout.volumeImage(volumeId));
      if (attached.isPresent()) {
        throw CsiException.failedPrecondition(
            "volume %s is still staged on node %s (attached as %s); unstage it before deleting",
            volumeId, config.nodeId(), attached.get().path());
      }
      catalog.removeVolume(record.get());
      capacity.promised(-record.get().sizeBytes());
      log.info("deleted volume {} ('{}')", volumeId, record.get().name());
    } catch (IOException e) {
      throw CsiException.internal("cannot delete volume " + volumeId + ": " + e.getMessage(), e);
    }
  }

  /** Grows a volume's image. The result says whether the node must still grow the device/fs. */
  public VolumeRecord expand(String volumeId, long required, long limit) {
    try (OperationLocks.Held held = locks.tryAcquire(volumeId, "volume " + volumeId)) {
      return growImage(volumeId, required, limit);
    }
  }

  /**
   * Grows the image to the range (never shrinks) and records it; the caller holds the volume's
   * lock. A mount volume's filesystem is marked to be grown by the node.
   */
  VolumeRecord growImage(String volumeId, long required, long limit) {
    VolumeRecord record = requireVolume(volumeId);
    if (required <= record.sizeBytes() && (limit == 0 || limit >= record.sizeBytes())) {
      return record;
    }
    long size = SizePolicy.resolve(required, limit, record.sizeBytes(), SizePolicy.MAXIMUM_SIZE);
    long growth = size - record.sizeBytes();
    Capacity now = capacity.current();
    if (growth > now.availableBytes()) {
      throw CsiException.outOfRange(
          "growing volume %s by %d bytes exceeds what node %s can still promise (%d bytes)",
          volumeId, growth, config.nodeId(), now.availableBytes());
    }
    try {
      allocateSparse(layout.volumeImage(volumeId), size);
      VolumeRecord grown = record.withSize(size, record.accessType() == AccessType.MOUNT);
      catalog.update(grown);
      capacity.promised(growth);
      log.info("expanded volume {} from {} to {} bytes", volumeId, record.sizeBytes(), size);
      return grown;
    } catch (IOException e) {
      throw CsiException.internal("cannot expand volume " + volumeId + ": " + e.getMessage(), e);
    }
  }

  public SnapshotRecord createSnapshot(String name, String sourceVolumeId) {
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
        VolumeRecord source = requireVolume(sourceVolumeId);
        requireSpaceForCopy(source);
        String id = Ids.newSnapshotId();
        Path assembled = DataLayout.creating(layout.snapshotDir(id));
        try {
          Files.createDirectories(assembled);
          copyConsistent(source, assembled.resolve(DataLayout.IMAGE));
          SnapshotRecord record =
              new SnapshotRecord(
                  VolumeRecord.SCHEMA_VERSION,
                  id,
                  name,
                  source.id(),
                  source.sizeBytes(),
                  source.accessType(),
                  source.fsType(),
                  Instant.now().toString());
          Catalog.writeMeta(assembled, record);
          catalog.publish(record, assembled);
          log.info("created snapshot {} ('{}') of volume {}", id, name, source.id());
          return record;
        } catch (IOException | RuntimeException e) {
          throw abandon(assembled, "snapshot '" + name + "'", e);
        }
      }
    }
  }

  private void requireSpaceForCopy(VolumeRecord source) {
    long needed = host.stats().allocatedBytes(layout.volumeImage(source.id()));
    long usable = layout.root().toFile().getUsableSpace();
    if (needed > usable) {
      throw CsiException.resourceExhausted(
          "a snapshot of volume %s needs %d bytes; the data dir %s has %d free",
          source.id(), needed, layout.root(), usable);
    }
  }

  public void deleteSnapshot(String snapshotId) {
    if (!Ids.isSnapshotId(snapshotId)) {
      return;
    }
    try (OperationLocks.Held held = locks.tryAcquire(snapshotId, "snapshot " + snapshotId)) {
      Optional<SnapshotRecord> record = catalog.snapshot(snapshotId);
      if (record.isPresent()) {
        catalog.removeSnapshot(record.get());
        log.info("deleted snapshot {} ('{}')", snapshotId, record.get().name());
      }
    } catch (IOException e) {
      throw CsiException.internal(
          "cannot delete snapshot " + snapshotId + ": " + e.getMessage(), e);
    }
  }

  public VolumeRecord requireVolume(String volumeId) {
    return catalog
        .volume(volumeId)
        .orElseThrow(
            () ->
                CsiException.notFound(
                    "volume %s does not exist on node %s", volumeId, config.nodeId()));
  }

  /** Where the volume's filesystem is mounted on this node, if it is staged with one. */
  public Optional<Path> mountedAt(VolumeRecord volume) {
    if (volume.accessType() != AccessType.MOUNT) {
      return Optional.empty();
    }
    return host.loops()
        .find(layout.volumeImage(volume.id()))
        .flatMap(
            device ->
                host.mountTable().ofDevice(device).stream()
                    .filter(entry -> "/".equals(entry.root()))
                    .map(MountEntry::mountPoint)
                    .findFirst());
  }

  /** Copies a volume's image; a mounted filesystem is frozen meanwhile so the copy is clean. */
  private void copyConsistent(VolumeRecord volume, Path target) {
    Path from = layout.volumeImage(volume.id());
    Optional<Path> mounted = mountedAt(volume);
    if (mounted.isEmpty() && volume.accessType() == AccessType.MOUNT) {
      host.loops().find(from).ifPresent(device -> refuseUnfreezable(volume, device));
    }
    if (mounted.isEmpty()) {
      host.copySparse(from, target);
      return;
    }
    host.filesystems().freeze(mounted.get());
    try {
      host.copySparse(from, target);
    } finally {
      host.filesystems().unfreeze(mounted.get());
    }
  }

  /**
   * A staged filesystem this driver cannot see mounted (staged by an earlier driver in a mount
   * namespace it does not share) cannot be frozen, so its copy would be torn.
   */
  private static void refuseUnfreezable(VolumeRecord volume, LoopDevice device) {
    throw CsiException.failedPrecondition(
        "volume %s is staged on this node (%s) but its filesystem is not mounted where this driver"
            + " can freeze it; unstage it (or mount the kubelet directory into the driver with"
            + " Bidirectional propagation) before copying it",
        volume.id(), device.path());
  }

  private static void allocateSparse(Path image, long size) throws IOException {
    try {
      SparseFiles.extend(image, size);
    } catch (SparseFiles.TooLargeException e) {
      throw CsiException.outOfRange(
          "%s; ask for a smaller volume or put the data dir on a filesystem with larger files"
              + " (xfs)",
          e.getMessage());
    }
  }

  /** Removes a half-assembled directory and says why the creation failed. */
  private static CsiException abandon(Path assembled, String what, Exception cause) {
    try {
      Catalog.removeTree(assembled);
    } catch (IOException e) {
      log.warn("cannot remove {}: {}", assembled, e.getMessage());
    }
    return cause instanceof CsiException csi
        ? csi
        : CsiException.internal("cannot create " + what + ": " + cause.getMessage(), cause);
  }
}
