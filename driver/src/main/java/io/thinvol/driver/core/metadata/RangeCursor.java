package io.thinvol.driver.core.metadata;

import java.io.IOException;

/**
 * Ranges of a snapshot, in ascending order and never overlapping, produced one at a time so that a
 * caller can stream them at its client's pace without holding them all.
 */
public interface RangeCursor extends AutoCloseable {

  /** The size of the volume the snapshot was taken of. */
  long capacityBytes();

  /** The next range, or null when there is none left. */
  ByteRange next() throws IOException;

  @Override
  void close() throws IOException;
}
