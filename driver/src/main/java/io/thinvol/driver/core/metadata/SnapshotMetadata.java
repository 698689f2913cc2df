package io.thinvol.driver.core.metadata;

import io.thinvol.driver.core.CsiException;
import io.thinvol.driver.host.ImageExtents;
import io.thinvol.driver.store.Catalog;
import io.thinvol.driver.store.DataLayout;
import io.thinvol.driver.store.Ids;
import io.thinvol.driver.store.SnapshotRecord;
import java.io.IOException;
import java.nio.file.NoSuchFileException;

/**
 * The metadata of snapshots that incremental backups need: which ranges of a snapshot hold data,
 * and which blocks changed between two snapshots of one volume. Snapshots are immutable once
 * published and their images are read through descriptors opened up front, so no lock is taken: a
 * snapshot deleted during a call is still read to the end.
 */
public final class SnapshotMetadata {

  /**
   * The unit of comparison and alignment: the block of the filesystems a data dir is made of, and
   * the largest logical block size of a loop device.
   */
  public static final int BLOCK = 4096;

  private final Catalog catalog;
  private final DataLayout layout;
  private final String nodeId;

  public SnapshotMetadata(Catalog catalog, DataLayout layout, String nodeId) {
    this.catalog = catalog;
    this.layout = layout;
    this.nodeId = nodeId;
  }

  /** The data ranges of a snapshot from {@code startingOffset} (rounded down to a block). */
  public RangeCursor allocated(String snapshotId, long startingOffset) {
    SnapshotRecord snapshot = require(snapshotId, "snapshot_id");
    long start = start(startingOffset, snapshot.sizeBytes());
    return new AllocatedRanges(open(snapshot), snapshot.sizeBytes(), start);
  }

  /**
   * The blocks that differ between two snapshots of one volume, from {@code startingOffset}
   * (rounded down to a block) up to the target's size.
   */
  public RangeCursor delta(String baseId, String targetId, long startingOffset) {
    SnapshotRecord base = require(baseId, "base_snapshot_id");
    SnapshotRecord target = require(targetId, "target_snapshot_id");
    if (!base.sourceVolumeId().equals(target.sourceVolumeId())) {
      throw CsiException.invalidArgument(
          "base snapshot %s is of volume %s and target snapshot %s of volume %s: a delta is only"
              + " defined between two snapshots of the same volume; take the base from the"
              + " target's volume, or back the target up in full with GetMetadataAllocated",
          base.id(), base.sourceVolumeId(), target.id(), target.sourceVolumeId());
    }
    long start = start(startingOffset, target.sizeBytes());
    ImageExtents baseImage = open(base);
    try {
      return new ChangedRanges(baseImage, open(target), target.sizeBytes(), start, BLOCK);
    } catch (RuntimeException e) {
      closeQuietly(baseImage);
      throw e;
    }
  }

  private SnapshotRecord require(String id, String field) {
    if (!Ids.isSnapshotId(id)) {
      throw CsiException.notFound(
          "%s '%s' is not a snapshot of this driver (its ids look like snap-<32 hex digits>)",
          field, id);
    }
    return catalog
        .snapshot(id)
        .orElseThrow(
            () ->
                CsiException.notFound(
                    "%s %s does not exist on node %s: it was deleted, or it is kept on another"
                        + " node (snapshots are node-local; ask the node that holds it)",
                    field, id, nodeId));
  }

  private static long start(long startingOffset, long capacity) {
    if (startingOffset >= capacity) {
      throw CsiException.outOfRange(
          "starting_offset %d is not below the volume's size of %d bytes; continue from an offset"
              + " below %d",
          startingOffset, capacity, capacity);
    }
    return startingOffset - startingOffset % BLOCK;
  }

  private ImageExtents open(SnapshotRecord snapshot) {
    try {
      return ImageExtents.open(layout.snapshotImage(snapshot.id()));
    } catch (NoSuchFileException e) {
      throw CsiException.notFound("snapshot %s was deleted meanwhile", snapshot.id());
    } catch (IOException e) {
      throw CsiException.internal(
          "cannot read the image of snapshot " + snapshot.id() + ": " + e.getMessage(), e);
    }
  }

  private static void closeQuietly(ImageExtents image) {
    try {
      image.close();
    } catch (IOException e) {
      // read-only: nothing is lost
    }
  }
}
