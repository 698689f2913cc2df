package io.thinvol.driver.core;

import io.thinvol.driver.host.DeltaSpool;
import io.thinvol.driver.host.SparseFiles;
import io.thinvol.driver.store.AtomicFiles;
import io.thinvol.driver.store.Catalog;
import io.thinvol.driver.store.DataLayout;
import io.thinvol.driver.store.Ids;
import io.thinvol.driver.store.VolumeRecord;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A delta applied in place onto its base, which it consumes: where a copy of the base would be a
 * full copy (a data dir without reflinks), a move's cut-over takes the base's image itself instead
 * of copying and syncing all of it. The base must be no replica (a replication keeps its replicas
 * until the next sync point) and is held under its lock, attached nowhere.
 *
 * <p>Private until committed: the changes are received into a spool in {@code
 * volumes/.applying-<new id>} (a redo journal, {@link DeltaSpool}) and checked against the sender's
 * digest of the snapshot from the base's record, the base unread and unwritten; a failure or a
 * crash then leaves the base as it was, and the directory is removed. The commit is the durable
 * write of the journal's mark (the base's id), once the spool and the new volume's record are
 * synced. From then on it is always finished, by the call or by the next start ({@link #recover}),
 * in steps that may each be repeated: the base's image moved into the new directory, the spool
 * applied onto it and synced, the base's volume removed, the spool dropped, the new volume
 * published under its id.
 */
final class InPlaceDeltas {

  private static final Logger log = LoggerFactory.getLogger(InPlaceDeltas.class);

  static final String SPOOL = "delta.spool";

  /** The commit: its content is the base's volume id. */
  static final String COMMITTED = "applied-onto";

  private final DataLayout layout;
  private final Catalog catalog;
  private final CapacityGauge capacity;

  InPlaceDeltas(DataLayout layout, Catalog catalog, CapacityGauge capacity) {
    this.layout = layout;
    this.catalog = catalog;
    this.capacity = capacity;
  }

  /** Whether a delta onto {@code base} is applied in place where copies are not reflinks. */
  static boolean consumable(VolumeRecord base) {
    return base.replication() == null;
  }

  /**
   * The volume of {@code spec}, {@code size} bytes, made from {@code copy} applied in place onto
   * {@code base} (locked, attached nowhere, consumable). Empty, with nothing changed, when the
   * base's record cannot vouch for the result: the caller copies the base instead.
   */
  Optional<VolumeRecord> make(
      VolumeSpec spec,
      VolumeRecord base,
      RemoteSources.RemoteCopy copy,
      long size,
      Boolean formatted) {
    String id = Ids.newVolumeId();
    Path dir = DataLayout.applying(layout.volumeDir(id));
    Path image = dir.resolve(DataLayout.IMAGE);
    boolean committed = false;
    long growth = Math.max(0, size - base.sizeBytes());
    try (CapacityGauge.Reservation reserved = capacity.reserveGrowth(id, growth)) {
      // Durable while the sender still looks for the changes, off the cut-over's path: the base's
      // image will be moved into this directory.
      Files.createDirectories(dir);
      VolumeRecord record =
          VolumeAssembly.record(spec, id, size, size > copy.description().sizeBytes(), formatted);
      Catalog.writeMeta(dir, record);
      AtomicFiles.syncDirectory(layout.volumes());
      try (DeltaSpool spool = DeltaSpool.create(dir.resolve(SPOOL))) {
        if (!copy.spoolTo(
            spool, image, new RemoteSources.DeltaBase(layout.volumeImage(base.id()), true))) {
          Assembling.remove(dir);
          return Optional.empty();
        }
      }
      long received = System.nanoTime();
      AtomicFiles.write(dir.resolve(COMMITTED), base.id().getBytes(StandardCharsets.UTF_8));
      committed = true;
      apply(dir, record, base.id());
      long applied = System.nanoTime();
      copy.recordBlocks(image);
      publish(dir, record);
      reserved.keep(); // the base's size, promised already, and the growth are the new volume's
      log.info(
          "created volume {} ('{}', {} bytes, {}) from the changes applied in place onto volume {},"
              + " which is gone (committed and applied in {} ms, recorded and published in {} ms)",
          id,
          spec.name(),
          size,
          spec.accessType(),
          base.id(),
          (applied - received) / 1_000_000,
          (System.nanoTime() - applied) / 1_000_000);
      return Optional.of(record);
    } catch (IOException | RuntimeException e) {
      if (!committed) {
        throw Assembling.abandon(dir, "volume '" + spec.name() + "'", e);
      }
      log.error("cannot finish volume {} applied in place onto volume {}", id, base.id(), e);
      throw CsiException.internal(
          String.format(
              "the changes for volume '%s' were received and committed onto volume %s, but could"
                  + " not be applied (%s); the driver applies them again when it next starts",
              spec.name(), base.id(), e.getMessage()),
          e);
    }
  }

  /**
   * Finishes every committed in-place volume a crash interrupted and removes those not committed.
   * Runs at start, before any call is served. A directory that cannot be finished is left as it is,
   * for a person: it may hold the base's image.
   */
  void recover() {
    try (DirectoryStream<Path> dirs = Files.newDirectoryStream(layout.volumes())) {
      for (Path dir : dirs) {
        String id = DataLayout.applyingVolumeId(dir);
        if (id != null) {
          recover(dir);
        }
      }
    } catch (IOException e) {
      log.error("cannot list {}: volumes applied in place may be unfinished", layout.volumes(), e);
    }
  }

  private void recover(Path dir) {
    Path mark = dir.resolve(COMMITTED);
    try {
      if (!Files.exists(mark)) {
        log.info("removing {}, a volume applied in place whose changes were never committed", dir);
        Assembling.remove(dir);
        return;
      }
      String baseId = Files.readString(mark, StandardCharsets.UTF_8).trim();
      VolumeRecord record = Catalog.readVolume(dir);
      try (DirectoryStream<Path> temporaries = Files.newDirectoryStream(dir, ".*")) {
        for (Path temporary : temporaries) {
          Files.deleteIfExists(temporary); // a record of the blocks not sealed, a meta file's temp
        }
      }
      Optional<VolumeRecord> base = catalog.volume(baseId);
      apply(dir, record, baseId);
      publish(dir, record);
      base.ifPresent(capacity::volumeDeleted);
      capacity.volumeAdded(record);
      log.info(
          "finished volume {} ('{}'): its committed changes applied in place onto volume {}",
          record.id(),
          record.name(),
          baseId);
    } catch (IOException | RuntimeException e) {
      log.error("cannot finish {}; it is left as it is, and may hold a volume's image", dir, e);
    }
  }

  /**
   * The committed steps, each of which may be repeated after a crash: the base's image moved in,
   * the spool applied onto it and synced, the base's volume removed, the spool dropped.
   */
  private void apply(Path dir, VolumeRecord record, String baseId) throws IOException {
    Path image = dir.resolve(DataLayout.IMAGE);
    if (!Files.exists(image)) {
      Path baseImage = layout.volumeImage(baseId);
      Files.move(baseImage, image, StandardCopyOption.ATOMIC_MOVE);
      AtomicFiles.syncDirectory(dir);
      AtomicFiles.syncDirectory(baseImage.getParent());
    }
    Path spool = dir.resolve(SPOOL);
    if (Files.exists(spool)) {
      DeltaSpool.apply(spool, image);
      SparseFiles.extend(image, record.sizeBytes()); // and synced, the changes with it
    }
    Optional<VolumeRecord> base = catalog.volume(baseId);
    if (base.isPresent()) {
      catalog.removeVolume(base.get());
    }
    // Not synced: a spool that comes back is applied again, or is left behind in the published
    // directory, harmless.
    Files.deleteIfExists(spool);
  }

  /** Under the new id; the commit's mark goes after, as junk a crash may leave there. */
  private void publish(Path dir, VolumeRecord record) throws IOException {
    catalog.publish(record, dir);
    Files.deleteIfExists(layout.volumeDir(record.id()).resolve(COMMITTED));
  }
}
