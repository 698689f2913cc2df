package io.thinvol.driver.core;

import io.thinvol.driver.host.HostTools;
import io.thinvol.driver.host.ImageExtents;
import io.thinvol.driver.store.AccessType;
import io.thinvol.driver.store.Catalog;
import io.thinvol.driver.store.ContentSource;
import io.thinvol.driver.store.DataLayout;
import io.thinvol.driver.store.SnapshotRecord;
import io.thinvol.driver.store.VolumeRecord;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.Consumer;

/**
 * Point-in-time images of this node's volumes and snapshots, read by another node's driver that
 * creates a volume from them. A snapshot is immutable: its image is read through a descriptor
 * opened now, without a lock. A volume is read under its lock, which keeps it from being staged
 * meanwhile; one that is attached already is copied first, exactly as a snapshot is taken (frozen
 * filesystem, reflink or sparse copy), and that private copy is read and removed at the end.
 */
public final class PointInTimeImages {

  private final String nodeId;
  private final DataLayout layout;
  private final Catalog catalog;
  private final HostTools host;
  private final OperationLocks locks;
  private final Snapshots snapshots;
  private final ImageCopier copier;

  PointInTimeImages(
      String nodeId,
      DataLayout layout,
      Catalog catalog,
      HostTools host,
      OperationLocks locks,
      Snapshots snapshots,
      ImageCopier copier) {
    this.nodeId = nodeId;
    this.layout = layout;
    this.catalog = catalog;
    this.host = host;
    this.locks = locks;
    this.snapshots = snapshots;
    this.copier = copier;
  }

  /** An image open for reading; closing it releases what keeps it unchanged. */
  public interface Opened extends AutoCloseable {
    SourceImage description();

    ImageExtents image();

    @Override
    void close();
  }

  /** Whether this node holds {@code source}: a cheap test before anything is opened. */
  /**
   * Hands {@code task} the image of snapshot {@code id} while it holds the snapshot's lock, so that
   * the snapshot is not deleted under it; nothing when another operation holds the lock or the
   * snapshot is gone.
   */
  public void withSnapshotImage(String id, Consumer<Path> task) {
    try (OperationLocks.Held held = locks.tryAcquire(id, "snapshot " + id)) {
      if (catalog.snapshot(id).isPresent()) {
        task.accept(layout.snapshotImage(id));
      }
    } catch (CsiException busy) {
      // deleted or restored meanwhile: the record can wait for another whole copy
    }
  }

  /** Where snapshot {@code id}'s image is (whether it exists or not). */
  public Path snapshotImage(String id) {
    return layout.snapshotImage(id);
  }

  public boolean holds(ContentSource source) {
    return source.kind() == ContentSource.Kind.SNAPSHOT
        ? catalog.snapshot(source.id()).isPresent()
        : catalog.volume(source.id()).isPresent();
  }

  /** Opens {@code source}; a copy that must be made first has to fit in {@code budget}. */
  public Opened open(ContentSource source, Duration budget) {
    return source.kind() == ContentSource.Kind.SNAPSHOT
        ? openSnapshot(source.id())
        : openVolume(source.id(), budget);
  }

  private Opened openSnapshot(String id) {
    SnapshotRecord snapshot =
        catalog
            .snapshot(id)
            .orElseThrow(
                () -> CsiException.notFound("snapshot %s does not exist on node %s", id, nodeId));
    Path image = layout.snapshotImage(id);
    SourceImage description =
        describe(
            snapshot.sizeBytes(),
            snapshot.sourceAccessType(),
            snapshot.fsType(),
            snapshot.formatted(),
            image);
    return opened(description, read(image, "snapshot " + id), () -> {});
  }

  private Opened openVolume(String id, Duration budget) {
    OperationLocks.Held held = locks.tryAcquire(id, "volume " + id);
    boolean handedOver = false;
    try {
      VolumeRecord volume =
          catalog
              .volume(id)
              .orElseThrow(
                  () -> CsiException.notFound("volume %s does not exist on node %s", id, nodeId));
      Path image = layout.volumeImage(id);
      SourceImage description =
          describe(
              volume.sizeBytes(), volume.accessType(), volume.fsType(), volume.formatted(), image);
      if (host.loops().find(image).isEmpty()) {
        // Nothing can write to it while the lock is held: read in place, no copy.
        Opened inPlace = opened(description, read(image, "volume " + id), held::close);
        handedOver = true;
        return inPlace;
      }
      Snapshots.Assembly copy = snapshots.begin(volume, "copy of " + id, null);
      try {
        copier.copy(volume, copy.image(), budget);
        held.close(); // the copy is private: the volume is free again
        handedOver = true;
        return opened(description, read(copy.image(), "the copy of volume " + id), copy::close);
      } catch (RuntimeException e) {
        copy.close();
        throw e;
      }
    } finally {
      if (!handedOver) {
        held.close();
      }
    }
  }

  private SourceImage describe(
      long size, AccessType type, String fsType, Boolean formatted, Path image) {
    return new SourceImage(
        size,
        type,
        fsType,
        type == AccessType.MOUNT && VolumeFilesystems.wasFormatted(formatted, image, host));
  }

  private static ImageExtents read(Path image, String what) {
    try {
      return ImageExtents.open(image);
    } catch (IOException e) {
      throw CsiException.internal("cannot read the image of " + what + ": " + e.getMessage(), e);
    }
  }

  private static Opened opened(SourceImage description, ImageExtents image, Runnable release) {
    return new Opened() {
      @Override
      public SourceImage description() {
        return description;
      }

      @Override
      public ImageExtents image() {
        return image;
      }

      @Override
      public void close() {
        try {
          image.close();
        } catch (IOException e) {
          // read-only: nothing is lost
        } finally {
          release.run();
        }
      }
    };
  }
}
