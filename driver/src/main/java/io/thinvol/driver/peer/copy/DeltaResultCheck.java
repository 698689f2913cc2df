package io.thinvol.driver.peer.copy;

import io.thinvol.driver.host.ImageExtents;
import io.thinvol.peer.v1.ImageDigest;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The digest of a delta's whole result, to compare with the sender's digest of the snapshot: the
 * blocks the base vouches for ({@link BaseBlocks}: shared with it on disk, and the base provably
 * unwritten since its record) taken from the base's record, every other block read. When the base
 * has no valid record, the whole result is read as it arrives. An answer from the record that
 * differs from the sender's, or a base whose seal broke meanwhile, is not believed either way: the
 * result is then read in full, and only that answer counts. Every segment's block checksums go into
 * the result's own record, for the next delta onto it.
 */
final class DeltaResultCheck implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(DeltaResultCheck.class);

  private final ImageExtents result;
  private final long size;
  private final BaseBlocks base;
  private final BlockSums.Writer record;
  private final ContentDigest.Progressive first;
  private ContentDigest.Progressive second;
  private CompletableFuture<ImageDigest> computing;
  private long started;

  private DeltaResultCheck(
      ImageExtents result, long size, BaseBlocks base, BlockSums.Writer record) {
    this.result = result;
    this.size = size;
    this.base = base;
    this.record = record;
    this.first =
        new ContentDigest.Progressive(result, size, new AtomicBoolean(), base, record, false);
  }

  /**
   * The check of {@code image} (a copy of {@code base}, may be null, being completed), recording
   * into {@code record} (may be null).
   */
  static DeltaResultCheck open(Path image, long size, Path base, BlockSums.Writer record)
      throws IOException {
    BaseBlocks vouching = base == null ? null : BaseBlocks.open(base).orElse(null);
    try {
      return new DeltaResultCheck(ImageExtents.open(image), size, vouching, record);
    } catch (IOException | RuntimeException e) {
      if (vouching != null) {
        vouching.close();
      }
      throw e;
    }
  }

  /** What the pull tells as its pieces pass: the segments below may be read. */
  ContentDigest.Progressive progress() {
    return first;
  }

  /**
   * Every piece is written and synced: the digest is computed from here on, while the sender's is
   * awaited.
   */
  void written() {
    if (computing == null) {
      started = System.nanoTime();
      computing = first.finish();
    }
  }

  /** The result's digest, once every piece is written and synced; see the class comment. */
  ImageDigest digest(ImageDigest theirs) throws IOException {
    written();
    ImageDigest ours = ContentDigest.await(computing);
    if (base == null) {
      return ours;
    }
    if (ours.equals(theirs)) { // the base's seal was checked again once the digest was done
      log.info(
          "checked the result against its base's record: {} of {} bytes read, in {} ms",
          first.readBytes(),
          size,
          (System.nanoTime() - started) / 1_000_000);
      return ours;
    }
    log.warn(
        "the result taken from its base's record does not read as the snapshot; reading it in"
            + " full before refusing it");
    second = new ContentDigest.Progressive(result, size, new AtomicBoolean(), null, record, true);
    return ContentDigest.await(second.finish());
  }

  /** The bytes of the result its digest read (the rest the base vouched for). */
  long readBytes() {
    return second != null ? second.readBytes() : first.readBytes();
  }

  /** Stops the reads under way and waits for them; closes the images. */
  @Override
  public void close() throws IOException {
    first.abandon();
    if (second != null) {
      second.abandon();
    }
    try {
      result.close();
    } finally {
      if (base != null) {
        base.close();
      }
    }
  }
}
