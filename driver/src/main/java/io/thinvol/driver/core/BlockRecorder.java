package io.thinvol.driver.core;

import io.thinvol.driver.host.SparseCopy;
import java.nio.file.Path;

/**
 * Records a new snapshot's block checksums from the pieces its full copy reads, with no second read
 * of it: a move's cut-over then finds the changes between two snapshots from their records, reading
 * neither (docs/decisions.md). Kept by the peers' copies ({@code peer.copy}), which trust a record
 * only while its image is provably unwritten since.
 */
public interface BlockRecorder {

  /** No records: every later delta reads the snapshot. */
  BlockRecorder NONE = (image, size) -> null;

  /** The record of the {@code size} bytes being copied to {@code image}; null when none is made. */
  Recording start(Path image, long size);

  /** A record being made of the pieces copied, in ascending order. */
  interface Recording extends SparseCopy.Pieces {

    /**
     * Seals the complete image (synced) and publishes its record beside it, durably; false, logged
     * and nothing left behind when there is none.
     */
    boolean seal(Path image);

    /** Drops the record unless it was sealed. */
    void discard();
  }
}
