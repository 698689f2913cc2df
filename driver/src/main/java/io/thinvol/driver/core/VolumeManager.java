package io.thinvol.driver.core;

import io.thinvol.driver.config.DriverConfig;
import io.thinvol.driver.host.HostTools;
import io.thinvol.driver.host.IoMode;
import io.thinvol.driver.store.AccessType;
import io.thinvol.driver.store.Catalog;
import io.thinvol.driver.store.ContentSource;
import io.thinvol.driver.store.DataLayout;
import io.thinvol.driver.store.GroupCatalog;
import io.thinvol.driver.store.ReplicationRecord;
import io.thinvol.driver.store.VolumeRecord;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The controller side of the sparse-file backend: volumes and snapshots as image files under the
 * data dir. Every operation on one volume, snapshot or name is serialised by {@link
 * OperationLocks}.
 */
public final class VolumeManager {

  private static final Logger log = LoggerFactory.getLogger(VolumeManager.class);
  // A repeated CreateVolume for a name waits for the first and gets its answer.
  private static final Duration NAME_WAIT = Duration.ofSeconds(30);

  private final DriverConfig config;
  private final DataLayout layout;
  private final Catalog catalog;
  private final HostTools host;
  private final OperationLocks locks;
  private final CapacityGauge capacity;
  private final Freezes freezes;
  private final ImageCopier copier;
  private final Snapshots snapshots;
  private final VolumeModifier modifier;
  private final VolumeClones clones;
  private final InPlaceDeltas inPlace;
  private final PointInTimeImages pointInTime;
  private final VolumeDeletion deletion;
  private final VolumeAssembly assembly;
  private final VolumeRoles roles;
  private final ReplicaCopies replicas;

  public VolumeManager(
      DriverConfig config,
      DataLayout layout,
      Catalog catalog,
      HostTools host,
      OperationLocks locks) {
    this(config, layout, catalog, host, locks, null);
  }

  /**
   * @param remotes where volumes whose content source is on another node are copied from; null:
   *     such a source is not found
   */
  public VolumeManager(
      DriverConfig config,
      DataLayout layout,
      Catalog catalog,
      HostTools host,
      OperationLocks locks,
      RemoteSources remotes) {
    this.config = config;
    this.layout = layout;
    this.catalog = catalog;
    this.host = host;
    this.locks = locks;
    this.capacity = new CapacityGauge(config, layout, catalog, host);
    this.assembly = new VolumeAssembly(layout, catalog, host, capacity);
    this.freezes = new Freezes(layout, host);
    this.copier = new ImageCopier(config, layout, host, freezes);
    this.snapshots = new Snapshots(layout, catalog, host, locks, this, copier, capacity);
    this.modifier = new VolumeModifier(this, host, locks);
    this.inPlace = new InPlaceDeltas(layout, catalog, capacity);
    this.clones =
        new VolumeClones(
            config.nodeId(), layout, catalog, host, locks, copier, assembly, remotes, inPlace);
    this.pointInTime =
        new PointInTimeImages(config.nodeId(), layout, catalog, host, locks, snapshots, copier);
    this.deletion = new VolumeDeletion(config.nodeId(), layout, catalog, host, locks, capacity);
    this.roles = new VolumeRoles(config.nodeId(), layout, catalog, host, locks, this);
    this.replicas = new ReplicaCopies(config.nodeId(), catalog, host, layout, locks, this, clones);
  }

  /**
   * Undoes what a crash of the previous run left behind: thaws the filesystems it froze, finishes
   * the volumes applied in place whose changes were committed.
   */
  public void recover() {
    freezes.thawLeftovers();
    inPlace.recover();
  }

  public Snapshots snapshots() {
    return snapshots;
  }

  /** This node's volumes and snapshots as other nodes copy them. */
  public PointInTimeImages pointInTime() {
    return pointInTime;
  }

  /** The volumes' roles in replications. */
  public VolumeRoles roles() {
    return roles;
  }

  /** Replicas of other nodes' volumes made on this node. */
  public ReplicaCopies replicas() {
    return replicas;
  }

  public VolumeModifier modifier() {
    return modifier;
  }

  /** Group snapshots of these volumes, recorded in {@code groups}. */
  public GroupSnapshots groupSnapshots(GroupCatalog groups) {
    return new GroupSnapshots(config, groups, catalog, locks, snapshots, copier);
  }

  public Catalog catalog() {
    return catalog;
  }

  public Capacity capacity() {
    return capacity.current();
  }

  /** The sizes of this node's volumes: the bytes it promised. */
  public long promisedBytes() {
    return capacity.promisedBytes();
  }

  /** The bytes the node's images (volumes and snapshots) occupy on the disk. */
  public long allocatedBytes() {
    return capacity.imageBytes();
  }

  /** The bytes the image of volume {@code volumeId} occupies on the disk. */
  public long allocatedBytes(String volumeId) {
    return host.stats().allocatedBytes(layout.volumeImage(volumeId));
  }

  /** Creates a volume; copying its content source must fit in {@code budget}. */
  public VolumeRecord create(VolumeSpec spec, Duration budget) {
    return onceByName(
        spec,
        existing -> existing,
        () -> spec.source() == null ? assembly.createEmpty(spec) : clones.create(spec, budget));
  }

  /**
   * Makes {@code spec}'s volume with {@code make}, under its name's lock; a volume of that name
   * made earlier is answered instead (through {@code answer}), if it is what {@code spec} asks for.
   */
  <T> T onceByName(VolumeSpec spec, Function<VolumeRecord, T> answer, Supplier<T> make) {
    try (OperationLocks.Held name =
        locks.acquire(
            "name:volume:" + spec.name(), "volume name '" + spec.name() + "'", NAME_WAIT)) {
      Optional<VolumeRecord> existing = catalog.volumeByName(spec.name());
      if (existing.isPresent()) {
        return answer.apply(VolumeSpecChecks.requireCompatible(existing.get(), spec));
      }
      VolumeSpecChecks.requireMakeable(spec, host.filesystemTools());
      return make.get();
    }
  }

  /**
   * A volume named {@code name} holding {@code snapshotId}, a snapshot of another node, pulled as
   * the changes since the snapshot that volume {@code baseId} of this node was made from: the same
   * access type, filesystem, I/O mode, StorageClass parameters and size as the base (the snapshot's
   * size where that is larger). {@code claim} replaces what entitled the base's copy (its claim
   * parameters, or a replica's VolumeReplication, whose claim a switchover's cut-over has deleted):
   * the claim the snapshot's node sends it for.
   */
  public DeltaCopied createFromDelta(
      String name, String snapshotId, String baseId, Map<String, String> claim, Duration budget) {
    Optional<DeltaCopied> made = madeOntoConsumedBase(name, snapshotId, baseId);
    if (made.isPresent()) {
      return made.get();
    }
    VolumeRecord base = DeltaBases.require(catalog, host, layout, config.nodeId(), baseId);
    Map<String, String> parameters = new TreeMap<>(base.parameters());
    parameters.remove(RemoteSources.REPLICATION_NAMESPACE);
    parameters.remove(RemoteSources.REPLICATION_NAME);
    parameters.putAll(claim);
    VolumeSpec spec =
        new VolumeSpec(
            name,
            base.sizeBytes(),
            0,
            base.accessType(),
            base.fsType(),
            new ContentSource(ContentSource.Kind.SNAPSHOT, snapshotId),
            parameters,
            IoMode.parse(base.ioMode()).orElse(IoMode.BUFFERED),
            baseId,
            null);
    return onceByName(
        spec, existing -> new DeltaCopied(existing, 0), () -> clones.createDelta(spec, budget));
  }

  /**
   * The volume a first call of this name made by applying the changes in place onto its base, which
   * is gone since ({@link InPlaceDeltas}): a repeated call answers it as any repeated creation.
   */
  private Optional<DeltaCopied> madeOntoConsumedBase(
      String name, String snapshotId, String baseId) {
    if (catalog.volume(baseId).isPresent()) {
      return Optional.empty();
    }
    try (OperationLocks.Held held =
        locks.acquire("name:volume:" + name, "volume name '" + name + "'", NAME_WAIT)) {
      return catalog
          .volumeByName(name)
          .filter(
              made ->
                  new ContentSource(ContentSource.Kind.SNAPSHOT, snapshotId)
                      .equals(made.contentSource()))
          .map(made -> new DeltaCopied(made, 0));
    }
  }

  /**
   * Deletes a volume; an unknown id is already deleted. A staged volume is refused. A replicated
   * primary's sync snapshot, which only its replication uses, goes with it.
   */
  public void delete(String volumeId) {
    String syncSnapshot =
        catalog
            .volume(volumeId)
            .map(VolumeRecord::replication)
            .filter(replication -> !replication.secondary())
            .map(ReplicationRecord::syncSnapshotId)
            .orElse(null);
    deletion.delete(volumeId);
    if (syncSnapshot != null) {
      snapshots.delete(syncSnapshot);
    }
  }

  /**
   * Deletes the volume named {@code name} if it was made from snapshot {@code snapshotId}; ABORTED
   * while a call making a volume of that name runs.
   *
   * @return whether there was one
   */
  public boolean deleteCopy(String name, String snapshotId) {
    return deletion.deleteCopy(name, snapshotId);
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
    try (CapacityGauge.Reservation reserved =
        capacity.reserveGrowth(volumeId, size - record.sizeBytes())) {
      assembly.allocateSparse(layout.volumeImage(volumeId), size);
      VolumeRecord grown = record.withSize(size, record.accessType() == AccessType.MOUNT);
      catalog.update(grown);
      reserved.keep();
      log.info("expanded volume {} from {} to {} bytes", volumeId, record.sizeBytes(), size);
      return grown;
    } catch (IOException e) {
      throw CsiException.internal("cannot expand volume " + volumeId + ": " + e.getMessage(), e);
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

  public Path imageOf(String volumeId) {
    return layout.volumeImage(volumeId);
  }

  /** Where the volume's filesystem is mounted on this node, if it is staged with one. */
  public Optional<Path> mountedAt(VolumeRecord volume) {
    if (volume.accessType() != AccessType.MOUNT) {
      return Optional.empty();
    }
    return host.loops().find(layout.volumeImage(volume.id())).flatMap(copier::filesystemMount);
  }
}
