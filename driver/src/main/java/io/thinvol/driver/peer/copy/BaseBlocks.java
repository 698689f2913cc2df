package io.thinvol.driver.peer.copy;

import io.thinvol.driver.core.metadata.ByteRange;
import io.thinvol.driver.core.metadata.SharedRuns;
import io.thinvol.driver.host.ImageExtents;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The base a delta's result was copied from, as far as it vouches for the result's blocks without
 * their being read: a block of the result that maps to the same settled disk address as the base's
 * block at the same offset (the copy was a reflink and nothing wrote it since) holds the base's
 * bytes, and the base's bytes are what its record says while its seal holds. Every other block of
 * the result is read. Opened only for a base with a valid record; closing it closes the base.
 */
final class BaseBlocks implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(BaseBlocks.class);
  private static final int BLOCK = ZeroBlocks.BLOCK;

  private final Path image;
  private final ImageExtents extents;
  private final BlockSums sums;

  private BaseBlocks(Path image, ImageExtents extents, BlockSums sums) {
    this.image = image;
    this.extents = extents;
    this.sums = sums;
  }

  /** The base at {@code image} if its record is valid; empty (logged) if it must be read. */
  static Optional<BaseBlocks> open(Path image) throws IOException {
    StringBuilder why = new StringBuilder();
    Optional<BlockSums> sums = BlockSums.open(image, why);
    if (sums.isEmpty()) {
      log.info("nothing is taken from the record of {}, all is read: {}", image, why);
      return Optional.empty();
    }
    try {
      return Optional.of(new BaseBlocks(image, ImageExtents.open(image), sums.get()));
    } catch (IOException | RuntimeException e) {
      sums.get().close();
      throw e;
    }
  }

  /** Whether the base's record still holds: nothing wrote the base while it vouched. */
  boolean stillSealed() throws IOException {
    StringBuilder why = new StringBuilder();
    Optional<BlockSums> again = BlockSums.open(image, why);
    if (again.isEmpty()) {
      log.warn("base {} changed while the result was checked against its record: {}", image, why);
      return false;
    }
    again.get().close();
    return true;
  }

  /**
   * The base's recorded checksums of the segment starting at {@code start} (2 per block, 0 and 0
   * for zeros; none past the base's end), or null when that slice of the record is damaged.
   */
  int[] recorded(long start) throws IOException {
    if (start >= sums.length()) {
      return new int[0];
    }
    int[] recorded = sums.slice(start);
    if (recorded == null) {
      log.warn("the record of base {} is damaged at {}", image, start);
    }
    return recorded;
  }

  /**
   * The blocks of the result's segment {@code [start, end)} the base vouches for, with their
   * checksums; null when it vouches for none.
   */
  Known knownIn(ImageExtents result, long start, long end) throws IOException {
    long limit = Math.min(end, sums.length());
    if (start >= limit) {
      return null;
    }
    int[] recorded = sums.slice(start);
    if (recorded == null) {
      log.warn("the record of base {} is damaged at {}: that segment is read", image, start);
      return null;
    }
    boolean[] shared = new boolean[recorded.length / 2];
    for (ByteRange run :
        SharedRuns.of(
            extents.physical(start, limit), result.physical(start, limit), start, limit)) {
      // Only whole blocks: a block shared in part is read.
      long first = (run.offset() - start + BLOCK - 1) / BLOCK;
      long last = (run.end() - start) / BLOCK;
      for (long block = first; block < last && block < shared.length; block++) {
        shared[(int) block] = true;
      }
    }
    return new Known(shared, recorded);
  }

  @Override
  public void close() throws IOException {
    try {
      sums.close();
    } finally {
      extents.close();
    }
  }

  /** One segment's blocks the base vouches for. */
  static final class Known {
    private final boolean[] shared;
    private final int[] recorded;

    private Known(boolean[] shared, int[] recorded) {
      this.shared = shared;
      this.recorded = recorded;
    }

    boolean has(int block) {
      return block < shared.length && shared[block];
    }

    /** The base's block as the segment's: zeros, or data with the recorded checksums. */
    void copyTo(int block, SegmentSums segment) {
      int castagnoli = recorded[2 * block];
      int ieee = recorded[2 * block + 1];
      boolean data = castagnoli != 0 || ieee != 0;
      segment.data[block] = data;
      segment.sums[2 * block] = data ? castagnoli : 0;
      segment.sums[2 * block + 1] = data ? ieee : 0;
    }
  }
}
