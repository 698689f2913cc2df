package io.thinvol.driver.peer.copy;

import io.thinvol.driver.core.RemoteSources;
import io.thinvol.driver.host.ImageExtents;
import io.thinvol.peer.v1.ImageDigest;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The digest of a delta's whole result, to compare with the sender's digest of the snapshot. Where
 * the base has a valid record ({@link BaseBlocks}), what it vouches for is not read: with a reflink
 * of it, the blocks the result still shares with it on disk; with a full copy of it ({@link
 * CopiedBase}), every block no piece wrote. Every other block is read; without a valid record, the
 * whole result, as it arrives. An answer from the record that differs from the sender's, or a base
 * whose seal broke meanwhile, is not believed either way: the result is then read in full, and only
 * that answer counts. Every segment's block checksums go into the result's own record, for the next
 * delta onto it.
 */
final class DeltaResultCheck implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(DeltaResultCheck.class);

  private final ImageExtents result;
  private final long size;
  private final BaseBlocks base;
  private final BlockSums.Writer record;
  private final ContentDigest.Progressive reading; // null when a full copy's record vouches
  private final CopiedBase copied; // null unless it does
  private ContentDigest.Progressive second;
  private CompletableFuture<ImageDigest> computing;
  private long started;

  private DeltaResultCheck(
      ImageExtents result,
      long size,
      BaseBlocks base,
      boolean copiedInFull,
      BlockSums.Writer record) {
    this.result = result;
    this.size = size;
    this.base = base;
    this.record = record;
    boolean fromRecord = base != null && copiedInFull;
    this.copied = fromRecord ? new CopiedBase(result, size, base, record) : null;
    this.reading =
        fromRecord
            ? null
            : new ContentDigest.Progressive(result, size, new AtomicBoolean(), base, record, false);
  }

  /**
   * The check of {@code image} (a copy of {@code base}, being completed), recording into {@code
   * record} (may be null).
   */
  static DeltaResultCheck open(
      Path image, long size, RemoteSources.DeltaBase base, BlockSums.Writer record)
      throws IOException {
    BaseBlocks vouching = BaseBlocks.open(base.image()).orElse(null);
    try {
      return new DeltaResultCheck(
          ImageExtents.open(image), size, vouching, base.copiedInFull(), record);
    } catch (IOException | RuntimeException e) {
      if (vouching != null) {
        vouching.close();
      }
      throw e;
    }
  }

  /**
   * The check of a delta to be applied in place onto {@code baseImage} (a full copy's base): the
   * result's digest from the base's record and the pieces alone; null when the base has no valid
   * record. Where a slice of the record is damaged the base's segment is read, as the result would
   * read before the pieces (the base is unwritten until the check is done).
   */
  static DeltaResultCheck inPlace(Path baseImage, long size, BlockSums.Writer record)
      throws IOException {
    BaseBlocks vouching = BaseBlocks.open(baseImage).orElse(null);
    if (vouching == null) {
      return null;
    }
    try {
      return new DeltaResultCheck(ImageExtents.open(baseImage), size, vouching, true, record);
    } catch (IOException | RuntimeException e) {
      vouching.close();
      throw e;
    }
  }

  /**
   * For a delta applied in place, every piece spooled: whether the base's record and the pieces
   * give the sender's digest {@code theirs}. False when they cannot tell (see {@link
   * CopiedBase#finish}) or give another: only the result itself, read in full, may decide then.
   */
  boolean vouchedFor(ImageDigest theirs) throws IOException {
    started = System.nanoTime();
    ImageDigest ours = copied.finish();
    boolean vouched = theirs.equals(ours);
    log.info(
        "checked the changes against their base's record: {} ({} of {} bytes read, in {} ms)",
        vouched
            ? "they make the snapshot, to be applied in place"
            : ours == null ? "the record cannot tell" : "the record does not make the snapshot",
        readBytes(),
        size,
        (System.nanoTime() - started) / 1_000_000);
    return vouched;
  }

  /** A piece of bytes about to be written at {@code offset}, after every earlier one. */
  void piece(long offset, ByteBuffer bytes) throws IOException {
    if (copied != null) {
      copied.piece(offset, bytes);
    } else {
      reading.completeUpTo(offset);
    }
  }

  /** A run of zeros about to be punched out at {@code offset}, after every earlier piece. */
  void zeros(long offset, long length) throws IOException {
    if (copied != null) {
      copied.zeros(offset, length);
    } else {
      reading.completeUpTo(offset);
    }
  }

  /**
   * Every piece is written and synced: the digest is computed from here on, while the sender's is
   * awaited.
   */
  void written() throws IOException {
    if (computing != null) {
      return;
    }
    started = System.nanoTime();
    if (copied == null) {
      computing = reading.finish();
      return;
    }
    ImageDigest known = copied.finish();
    computing = known != null ? CompletableFuture.completedFuture(known) : readInFull();
  }

  /** The result's digest, once every piece is written and synced; see the class comment. */
  ImageDigest digest(ImageDigest theirs) throws IOException {
    written();
    ImageDigest ours = ContentDigest.await(computing);
    if (base == null || second != null) {
      return ours;
    }
    if (ours.equals(theirs)) { // the base's seal was checked again once the digest was done
      log.info(
          "checked the result against its base's record: {} of {} bytes read, in {} ms ({})",
          readBytes(),
          size,
          (System.nanoTime() - started) / 1_000_000,
          copied != null ? "a full copy of the base, the pieces laid over it" : "a reflink of it");
      return ours;
    }
    log.warn(
        "the result taken from its base's record does not read as the snapshot; reading it in"
            + " full before refusing it");
    return ContentDigest.await(readInFull());
  }

  private CompletableFuture<ImageDigest> readInFull() {
    second = new ContentDigest.Progressive(result, size, new AtomicBoolean(), null, record, true);
    return second.finish();
  }

  /** The bytes of the result its digest read (the rest the base vouched for). */
  long readBytes() {
    if (second != null) {
      return second.readBytes();
    }
    return copied != null ? copied.readBytes() : reading.readBytes();
  }

  /** Stops the reads under way and waits for them; closes the images. */
  @Override
  public void close() throws IOException {
    if (reading != null) {
      reading.abandon();
    }
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
