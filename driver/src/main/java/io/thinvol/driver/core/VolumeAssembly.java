package io.thinvol.driver.core;

import io.thinvol.driver.host.HostTools;
import io.thinvol.driver.host.SparseFiles;
import io.thinvol.driver.store.AccessType;
import io.thinvol.driver.store.Catalog;
import io.thinvol.driver.store.DataLayout;
import io.thinvol.driver.store.Ids;
import io.thinvol.driver.store.VolumeRecord;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a new volume comes to be, empty or a copy: its size chosen, its image written in a private
 * directory within capacity reserved for it, recorded, and published only once complete and
 * durable; abandoned without a trace otherwise.
 */
final class VolumeAssembly {

  private static final Logger log = LoggerFactory.getLogger(VolumeAssembly.class);

  private final DataLayout layout;
  private final Catalog catalog;
  private final HostTools host;
  private final CapacityGauge capacity;

  VolumeAssembly(DataLayout layout, Catalog catalog, HostTools host, CapacityGauge capacity) {
    this.layout = layout;
    this.catalog = catalog;
    this.host = host;
    this.capacity = capacity;
  }

  /** Writes a new volume's image. */
  interface ImageWriter {
    void write(Path image) throws IOException;
  }

  VolumeRecord createEmpty(VolumeSpec spec) {
    long size = sizeFor(spec, 0);
    Boolean formatted = spec.accessType() == AccessType.MOUNT ? false : null;
    return assemble(spec, size, false, formatted, image -> allocateSparse(image, size));
  }

  long sizeFor(VolumeSpec spec, long sourceSize) {
    long floor = Math.max(SizePolicy.minimum(spec.accessType(), spec.fsType()), sourceSize);
    return SizePolicy.resolve(
        spec.requiredBytes(), spec.limitBytes(), floor, SizePolicy.MAXIMUM_SIZE);
  }

  VolumeRecord assemble(
      VolumeSpec spec, long size, boolean grow, Boolean formatted, ImageWriter writer) {
    String id = Ids.newVolumeId();
    Path assembled = DataLayout.creating(layout.volumeDir(id));
    try (CapacityGauge.Reservation reserved = capacity.reserveVolume(size)) {
      Files.createDirectories(assembled);
      writer.write(assembled.resolve(DataLayout.IMAGE));
      VolumeRecord record = record(spec, id, size, grow, formatted);
      Catalog.writeMeta(assembled, record);
      catalog.publish(record, assembled);
      reserved.keep();
      log.info("created volume {} ('{}', {} bytes, {})", id, spec.name(), size, spec.accessType());
      return record;
    } catch (IOException | RuntimeException e) {
      throw Assembling.abandon(assembled, "volume '" + spec.name() + "'", e);
    }
  }

  /** The record of volume {@code id}, made now as {@code spec} asks. */
  static VolumeRecord record(
      VolumeSpec spec, String id, long size, boolean grow, Boolean formatted) {
    return new VolumeRecord(
        VolumeRecord.SCHEMA_VERSION,
        id,
        spec.name(),
        size,
        spec.accessType(),
        spec.fsType(),
        spec.source(),
        Instant.now().toString(),
        spec.parameters(),
        grow && spec.accessType() == AccessType.MOUNT,
        formatted,
        spec.ioMode().id(),
        spec.replication());
  }

  void allocateSparse(Path image, long size) throws IOException {
    try {
      SparseFiles.extend(image, size);
    } catch (SparseFiles.TooLargeException e) {
      throw CsiException.outOfRange(
          "%s; ask for a smaller volume or put the data dir on a filesystem with larger files"
              + " (xfs)",
          e.getMessage());
    }
    host.files().syncWithDirectory(image);
  }
}
