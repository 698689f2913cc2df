package io.thinvol.driver.peer.copy;

import io.thinvol.driver.core.metadata.RangeCursor;
import io.thinvol.driver.host.ImageExtents;
import io.thinvol.peer.v1.ImageDigest;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * What the sender of a delta from base snapshot S1 to S2 sends: the ranges of S2 that changed, in
 * ascending order, then the digest of the whole of S2. Closing it stops what it still reads.
 */
public interface DeltaParts extends RangeCursor {

  /** The digest of the whole of S2, once every range was taken. */
  ImageDigest digest() throws IOException;

  /**
   * The delta to S2 ({@code target}, open, of {@code size} bytes) from S1 at {@code base}: found
   * from S1's recorded block checksums where it has a valid record ({@link RecordedDelta}), else
   * the ranges {@code compared} byte for byte, with the digest read meanwhile. Takes {@code
   * compared} over, and closes it if it is not used.
   */
  static DeltaParts of(ImageExtents target, long size, Path base, RangeCursor compared)
      throws IOException {
    Optional<BaseBlocks> recorded;
    try {
      recorded = BaseBlocks.open(base);
    } catch (IOException | RuntimeException e) {
      compared.close();
      throw e;
    }
    if (recorded.isPresent()) {
      compared.close();
      return new RecordedDelta(target, size, recorded.get());
    }
    return new ComparedDelta(
        compared, new ContentDigest.Progressive(target, size, new AtomicBoolean()));
  }
}
