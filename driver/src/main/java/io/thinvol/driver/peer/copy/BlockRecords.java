package io.thinvol.driver.peer.copy;

import io.thinvol.driver.host.ImageExtents;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records a pulled image's block checksums beside it once it is complete, so that a delta onto it
 * later needs not read it ({@link BaseBlocks}). Best effort: a copy never fails for want of its
 * record; the next delta then reads its result in full.
 */
public final class BlockRecords {

  private static final Logger log = LoggerFactory.getLogger(BlockRecords.class);

  private BlockRecords() {}

  /** Seals {@code image} and publishes the checksums {@code record} gathered of it. */
  static void seal(BlockSums.Writer record, Path image) {
    StringBuilder why = new StringBuilder();
    try {
      if (record.seal(image, why)) {
        return;
      }
    } catch (IOException | RuntimeException e) {
      why.append(e.getMessage());
    }
    record.discard();
    log.warn("no record of the blocks of {}: {}", image, why);
  }

  /** Reads the whole of {@code image} (a whole copy, just synced) for its record. */
  static void readAndSeal(Path image) {
    long started = System.nanoTime();
    BlockSums.Writer record;
    try (ImageExtents extents = ImageExtents.open(image)) {
      record = BlockSums.Writer.create(image, extents.size());
      if (record == null) {
        return;
      }
      ContentDigest.Progressive reading =
          new ContentDigest.Progressive(
              extents, extents.size(), new AtomicBoolean(), null, record, true);
      try {
        ContentDigest.await(reading.finish());
      } catch (IOException | RuntimeException e) {
        record.discard();
        log.warn("no record of the blocks of {}: {}", image, e.getMessage());
        return;
      } finally {
        reading.abandon();
      }
    } catch (IOException e) {
      log.warn("no record of the blocks of {}: {}", image, e.getMessage());
      return;
    }
    seal(record, image);
    log.info(
        "recorded the blocks of {} in {} ms", image, (System.nanoTime() - started) / 1_000_000);
  }
}
