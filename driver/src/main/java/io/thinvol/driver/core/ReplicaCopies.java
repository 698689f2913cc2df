package io.thinvol.driver.core;

import io.thinvol.driver.host.HostTools;
import io.thinvol.driver.host.IoMode;
import io.thinvol.driver.store.Catalog;
import io.thinvol.driver.store.ContentSource;
import io.thinvol.driver.store.DataLayout;
import io.thinvol.driver.store.ReplicationRecord;
import io.thinvol.driver.store.VolumeRecord;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The replicas a replication's syncs make on its standby node: the next one from the previous one
 * (a copy of it, which is left untouched, with the changes since its sync point applied), or the
 * first in full. A replica is a secondary of its replication from the moment it is published, so
 * nothing ever stages it; it is assembled privately and checked against a digest of the whole
 * snapshot before, as every copy.
 */
public final class ReplicaCopies {

  /**
   * One replica to make.
   *
   * @param name the new volume's name: a repeated call answers the volume made first
   * @param snapshotId the primary's sync snapshot, on another node
   * @param baseVolumeId the previous replica of the same replication on this node; null for a whole
   *     copy
   * @param replicationId the VolumeReplication's uid
   * @param namespace with {@code replication}: the VolumeReplication entitled to the snapshot
   * @param parameters a whole copy's StorageClass parameters (a delta inherits the base's)
   * @param ioMode a whole copy's I/O mode (from those parameters)
   */
  public record Request(
      String name,
      String snapshotId,
      String baseVolumeId,
      String replicationId,
      String namespace,
      String replication,
      Map<String, String> parameters,
      IoMode ioMode) {}

  private final String nodeId;
  private final Catalog catalog;
  private final HostTools host;
  private final DataLayout layout;
  private final OperationLocks locks;
  private final VolumeManager volumes;
  private final VolumeClones clones;

  ReplicaCopies(
      String nodeId,
      Catalog catalog,
      HostTools host,
      DataLayout layout,
      OperationLocks locks,
      VolumeManager volumes,
      VolumeClones clones) {
    this.nodeId = nodeId;
    this.catalog = catalog;
    this.host = host;
    this.layout = layout;
    this.locks = locks;
    this.volumes = volumes;
    this.clones = clones;
  }

  /** Makes the replica; the bytes received are what crossed the network. */
  public DeltaCopied copy(Request request, Duration budget) {
    ContentSource source = new ContentSource(ContentSource.Kind.SNAPSHOT, request.snapshotId());
    ReplicationRecord replication =
        ReplicationRecord.replica(request.replicationId(), request.snapshotId(), null);
    Map<String, String> entitlement =
        Map.of(
            RemoteSources.REPLICATION_NAMESPACE,
            request.namespace(),
            RemoteSources.REPLICATION_NAME,
            request.replication());
    if (request.baseVolumeId() == null) {
      Map<String, String> parameters = new TreeMap<>(request.parameters());
      parameters.putAll(entitlement);
      VolumeSpec template =
          new VolumeSpec(
              request.name(),
              0,
              0,
              null,
              null,
              source,
              parameters,
              request.ioMode(),
              null,
              replication);
      return whole(template, budget);
    }
    VolumeRecord base = requireReplicaBase(request);
    Map<String, String> parameters = new TreeMap<>(base.parameters());
    parameters.putAll(entitlement);
    VolumeSpec spec =
        new VolumeSpec(
            request.name(),
            base.sizeBytes(),
            0,
            base.accessType(),
            base.fsType(),
            source,
            parameters,
            IoMode.parse(base.ioMode()).orElse(IoMode.BUFFERED),
            base.id(),
            replication);
    return volumes.onceByName(
        spec, existing -> new DeltaCopied(existing, 0), () -> clones.createDelta(spec, budget));
  }

  /** Under the name's lock: the volume of that name made first, or a new whole copy. */
  private DeltaCopied whole(VolumeSpec template, Duration budget) {
    try (OperationLocks.Held name =
        locks.acquire(
            "name:volume:" + template.name(),
            "volume name '" + template.name() + "'",
            Duration.ofSeconds(30))) {
      Optional<VolumeRecord> existing = catalog.volumeByName(template.name());
      if (existing.isPresent()) {
        if (!template.source().equals(existing.get().contentSource())) {
          throw CsiException.alreadyExists(
              "volume '%s' exists on node %s with another content source", template.name(), nodeId);
        }
        return new DeltaCopied(existing.get(), 0);
      }
      return clones.createWhole(template, budget);
    }
  }

  /** A delta goes onto an intact replica of the same replication only. */
  private VolumeRecord requireReplicaBase(Request request) {
    ReplicationRecord held =
        catalog.volume(request.baseVolumeId()).map(VolumeRecord::replication).orElse(null);
    if (catalog.volume(request.baseVolumeId()).isPresent()
        && (held == null
            || !held.secondary()
            || held.stale()
            || !held.id().equals(request.replicationId()))) {
      throw CsiException.failedPrecondition(
          "volume %s is not a replica of replication %s on node %s; a sync's delta goes onto the"
              + " previous replica (or, for a first sync, onto none)",
          request.baseVolumeId(), request.replicationId(), nodeId);
    }
    return DeltaBases.require(catalog, host, layout, nodeId, request.baseVolumeId());
  }
}
