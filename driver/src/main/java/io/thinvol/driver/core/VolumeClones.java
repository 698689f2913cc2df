package io.thinvol.driver.core;

import io.thinvol.driver.host.HostTools;
import io.thinvol.driver.host.ImageFiles;
import io.thinvol.driver.store.AccessType;
import io.thinvol.driver.store.Catalog;
import io.thinvol.driver.store.ContentSource;
import io.thinvol.driver.store.DataLayout;
import io.thinvol.driver.store.SnapshotRecord;
import io.thinvol.driver.store.VolumeRecord;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Volumes created with a content source: a local copy of a snapshot or volume of this node (reflink
 * or sparse copy), or, where the source is on another node, a copy pulled from that node's driver.
 * Either way the new image is assembled in a private directory and published only once it is
 * complete and durable.
 */
final class VolumeClones {

  private static final Logger log = LoggerFactory.getLogger(VolumeClones.class);

  private final String nodeId;
  private final DataLayout layout;
  private final Catalog catalog;
  private final HostTools host;
  private final OperationLocks locks;
  private final ImageCopier copier;
  private final VolumeAssembly assembly;
  private final RemoteSources remotes;
  private final InPlaceDeltas inPlace;

  VolumeClones(
      String nodeId,
      DataLayout layout,
      Catalog catalog,
      HostTools host,
      OperationLocks locks,
      ImageCopier copier,
      VolumeAssembly assembly,
      RemoteSources remotes,
      InPlaceDeltas inPlace) {
    this.nodeId = nodeId;
    this.layout = layout;
    this.catalog = catalog;
    this.host = host;
    this.locks = locks;
    this.copier = copier;
    this.assembly = assembly;
    this.remotes = remotes;
    this.inPlace = inPlace;
  }

  VolumeRecord create(VolumeSpec spec, Duration budget) {
    ContentSource source = spec.source();
    if (source.kind() == ContentSource.Kind.SNAPSHOT) {
      Optional<SnapshotRecord> snapshot = catalog.snapshot(source.id());
      if (snapshot.isPresent()) {
        return fromSnapshot(spec, snapshot.get(), budget);
      }
      return spec.baseVolumeId() == null
          ? fromAnotherNode(spec, "snapshot", budget)
          : deltaOntoBase(spec, budget).volume();
    }
    Optional<VolumeRecord> origin = catalog.volume(source.id());
    return origin.isPresent()
        ? fromVolume(spec, origin.get(), budget)
        : fromAnotherNode(spec, "volume", budget);
  }

  /** {@link #create} of a volume with a base: how much came from the snapshot's node, too. */
  DeltaCopied createDelta(VolumeSpec spec, Duration budget) {
    Optional<SnapshotRecord> local = catalog.snapshot(spec.source().id());
    return local.isPresent()
        ? new DeltaCopied(fromSnapshot(spec, local.get(), budget), 0)
        : deltaOntoBase(spec, budget);
  }

  /**
   * A whole copy of {@code template}'s source, a snapshot of another node, shaped as its header
   * says (size, access type, filesystem): a replica's first copy, where no volume of this node
   * tells the shape. {@code template} gives the name, parameters, I/O mode and replication.
   */
  DeltaCopied createWhole(VolumeSpec template, Duration budget) {
    if (remotes == null) {
      throw CsiException.failedPrecondition(
          "no copy can be pulled: copies from other nodes are off (the driver has no"
              + " --peer-token-file)");
    }
    long started = System.nanoTime();
    try (RemoteSources.RemoteCopy copy =
        remotes.open(template.source(), null, template.parameters(), budget)) {
      SourceImage image = copy.description();
      VolumeSpec spec =
          new VolumeSpec(
              template.name(),
              image.sizeBytes(),
              0,
              image.accessType(),
              image.fsType(),
              template.source(),
              template.parameters(),
              template.ioMode(),
              null,
              template.replication());
      String what = "snapshot " + spec.source().id() + " on node " + copy.node();
      VolumeRecord record = assemblePulled(spec, copy, what, null, budget);
      log.info(
          "copied {} in full into volume {} in {} ms ({} bytes received)",
          what,
          record.id(),
          (System.nanoTime() - started) / 1_000_000,
          copy.receivedBytes());
      return new DeltaCopied(record, copy.receivedBytes());
    }
  }

  private VolumeRecord fromSnapshot(VolumeSpec spec, SnapshotRecord snapshot, Duration budget) {
    String id = snapshot.id();
    LocalSource source =
        new LocalSource(
            id,
            "snapshot " + id,
            snapshot.sizeBytes(),
            snapshot.sourceAccessType(),
            snapshot.fsType(),
            snapshot.formatted(),
            layout.snapshotImage(id));
    return fromThisNode(spec, source, image -> copier.copySnapshot(id, image, budget));
  }

  private VolumeRecord fromVolume(VolumeSpec spec, VolumeRecord origin, Duration budget) {
    LocalSource source =
        new LocalSource(
            origin.id(),
            "volume " + origin.id(),
            origin.sizeBytes(),
            origin.accessType(),
            origin.fsType(),
            origin.formatted(),
            layout.volumeImage(origin.id()));
    return fromThisNode(spec, source, image -> copier.copy(origin, image, budget));
  }

  /** A snapshot or volume of this node, as a volume made from it sees it. */
  private record LocalSource(
      String id,
      String what,
      long sizeBytes,
      AccessType accessType,
      String fsType,
      Boolean formatted,
      Path image) {}

  /** The new volume copied from {@code source}, held under its lock throughout. */
  private VolumeRecord fromThisNode(
      VolumeSpec spec, LocalSource source, VolumeAssembly.ImageWriter copy) {
    VolumeSpecChecks.requireRestorable(spec, source.accessType(), source.fsType(), source.what());
    try (OperationLocks.Held held = locks.tryAcquire(source.id(), source.what())) {
      long size = assembly.sizeFor(spec, source.sizeBytes());
      return assembly.assemble(
          spec,
          size,
          size > source.sizeBytes(),
          inheritedFormat(spec, source.formatted(), source.image()),
          image -> {
            copy.write(image);
            assembly.allocateSparse(image, size);
          });
    }
  }

  /** The source is not on this node: pulled from the node that holds it, when there is one. */
  private VolumeRecord fromAnotherNode(VolumeSpec spec, String kind, Duration budget) {
    String id = spec.source().id();
    if (remotes == null) {
      throw CsiException.notFound(
          "%s %s does not exist on node %s (copies from other nodes are off: the driver has no"
              + " --peer-token-file)",
          kind, id, nodeId);
    }
    long started = System.nanoTime();
    try (RemoteSources.RemoteCopy copy =
        remotes.open(spec.source(), null, spec.parameters(), budget)) {
      String what = kind + " " + id + " on node " + copy.node();
      VolumeRecord record = assemblePulled(spec, copy, what, null, budget);
      log.info(
          "copied {} into volume {} in {} ms ({} bytes allocated)",
          what,
          record.id(),
          (System.nanoTime() - started) / 1_000_000,
          host.stats().allocatedBytes(layout.volumeImage(record.id())));
      return record;
    }
  }

  /**
   * Snapshot S2 of another node, as the changes since snapshot S1 (that the base volume of this
   * node was made from) applied onto the base. The base is held under its lock and must be attached
   * nowhere, so that it reads as S1 throughout. Where copies are reflinks, or the base is a
   * replica, the changes go onto a copy of it and the base is never written; otherwise they are
   * applied in place and the base is consumed ({@link InPlaceDeltas}), unless its record cannot
   * vouch for the result, which is then made on a copy of the base, pulled again.
   */
  private DeltaCopied deltaOntoBase(VolumeSpec spec, Duration budget) {
    String baseId = spec.baseVolumeId();
    if (remotes == null) {
      throw CsiException.failedPrecondition(
          "no delta can be pulled: copies from other nodes are off (the driver has no"
              + " --peer-token-file)");
    }
    try (OperationLocks.Held held = locks.tryAcquire(baseId, "volume " + baseId)) {
      VolumeRecord base = DeltaBases.require(catalog, host, layout, nodeId, baseId);
      if (!copier.reflinks() && InPlaceDeltas.consumable(base)) {
        Optional<DeltaCopied> made = pullDelta(spec, base, true, budget);
        if (made.isPresent()) {
          return made.get();
        }
      }
      return pullDelta(spec, base, false, budget).orElseThrow();
    }
  }

  /**
   * The delta pulled and applied in place onto {@code base} ({@code consume}), or onto a copy of
   * it; empty when it could not be applied in place, nothing changed.
   */
  private Optional<DeltaCopied> pullDelta(
      VolumeSpec spec, VolumeRecord base, boolean consume, Duration budget) {
    String baseSnapshot = base.contentSource().id();
    long started = System.nanoTime();
    try (RemoteSources.RemoteCopy copy =
        remotes.open(spec.source(), baseSnapshot, spec.parameters(), budget)) {
      String what = "snapshot " + spec.source().id() + " on node " + copy.node();
      Optional<VolumeRecord> record =
          consume
              ? applyInPlace(spec, copy, what, base)
              : Optional.of(assemblePulled(spec, copy, what, base, budget));
      record.ifPresent(
          made ->
              log.info(
                  "copied {} into volume {} as the changes since {} {} volume {} in {} ms ({}"
                      + " bytes received)",
                  what,
                  made.id(),
                  baseSnapshot,
                  consume ? "applied in place onto" : "onto a copy of",
                  base.id(),
                  (System.nanoTime() - started) / 1_000_000,
                  copy.receivedBytes()));
      return record.map(made -> new DeltaCopied(made, copy.receivedBytes()));
    }
  }

  /** The new volume from {@code copy} applied in place onto {@code base}, if its record vouches. */
  private Optional<VolumeRecord> applyInPlace(
      VolumeSpec spec, RemoteSources.RemoteCopy copy, String what, VolumeRecord base) {
    SourceImage source = copy.description();
    VolumeSpecChecks.requireRestorable(spec, source.accessType(), source.fsType(), what);
    long size = assembly.sizeFor(spec, source.sizeBytes());
    return inPlace.make(
        spec, base, copy, size, spec.accessType() == AccessType.MOUNT ? source.formatted() : null);
  }

  /** The new volume written from {@code copy}, onto a copy of {@code base} for a delta. */
  private VolumeRecord assemblePulled(
      VolumeSpec spec,
      RemoteSources.RemoteCopy copy,
      String what,
      VolumeRecord base,
      Duration budget) {
    SourceImage source = copy.description();
    VolumeSpecChecks.requireRestorable(spec, source.accessType(), source.fsType(), what);
    long size = assembly.sizeFor(spec, source.sizeBytes());
    return assembly.assemble(
        spec,
        size,
        size > source.sizeBytes(),
        spec.accessType() == AccessType.MOUNT ? source.formatted() : null,
        image -> {
          if (base == null) {
            copy.writeTo(image, null);
          } else {
            // Written out while the changes arrive; the pull syncs the image once they are in.
            copier.copyToComplete(base, image, budget);
            try (ImageFiles.Writeback writing = host.files().writeBack(image)) {
              copy.writeTo(
                  image,
                  new RemoteSources.DeltaBase(layout.volumeImage(base.id()), !copier.reflinks()));
            }
          }
          assembly.allocateSparse(image, size);
          copy.recordBlocks(image);
        });
  }

  /** A copy holds what its source held: a filesystem the driver made, or nothing yet. */
  private Boolean inheritedFormat(VolumeSpec spec, Boolean sourceFormatted, Path sourceImage) {
    return spec.accessType() == AccessType.MOUNT
        ? VolumeFilesystems.wasFormatted(sourceFormatted, sourceImage, host)
        : null;
  }
}
