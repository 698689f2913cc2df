package io.thinvol.driver.peer.copy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The record of an image's blocks ({@link BlockSums}) taken from the pieces of a whole copy, in
 * ascending order, as they are sent or written: what no piece covers is a hole. The receiver of a
 * pull records its new image so, the sender a snapshot it sends (the base of a move's cut-over),
 * with no second read of the image (up to a second per 512 MiB on the benchmark's host, and on the
 * sender a read still under way when the cut-over came). A piece that does not start and end on a
 * 4096-byte block spoils it: the receiver then reads its image for the record ({@link
 * BlockRecords#readAndSeal}), as it does for a volume larger than its source.
 */
public final class PieceBlocks {

  private static final Logger log = LoggerFactory.getLogger(PieceBlocks.class);
  private static final int BLOCK = ZeroBlocks.BLOCK;

  private BlockSums.Writer record; // null when spoilt, sealed or discarded
  private final long size;
  private SegmentSums segment; // the one the last piece went into; null before the first
  private long next; // where the segments not yet put start
  private long written; // the end of the last piece

  private PieceBlocks(BlockSums.Writer record, long size) {
    this.record = record;
    this.size = size;
  }

  /** The record of the {@code size} bytes being written to {@code image}. */
  static PieceBlocks of(Path image, long size) throws IOException {
    return new PieceBlocks(BlockSums.Writer.create(image, size), size);
  }

  /**
   * The record of snapshot {@code image}, about to be sent whole; null when it has a valid record
   * already, or none can be made.
   */
  public static PieceBlocks ofSnapshot(Path image) {
    try {
      Optional<BlockSums> existing = BlockSums.open(image, new StringBuilder());
      if (existing.isPresent()) {
        existing.get().close();
        return null;
      }
      return of(image, Files.size(image));
    } catch (IOException e) {
      log.info("no record of the blocks of {}: {}", image, e.getMessage());
      return null;
    }
  }

  /**
   * The piece of {@code bytes}' remaining bytes, written at {@code offset}; no position moves.
   * Joins its blocks' checksums into {@code piece}'s: true when they are the whole piece's (it was
   * recorded).
   */
  boolean add(long offset, ByteBuffer bytes, JoinedChecksums piece) {
    if (record == null) {
      return false;
    }
    if (offset % BLOCK != 0 || bytes.remaining() % BLOCK != 0) {
      spoil("a piece that is not of whole blocks");
      return false;
    }
    if (offset < written) {
      spoil("a piece below the last one");
      return false;
    }
    written = offset + bytes.remaining();
    piece.reset();
    try {
      for (int done = 0; done < bytes.remaining(); ) {
        long at = offset + done;
        SegmentSums into = segmentAt(at);
        int length = (int) Math.min(bytes.remaining() - done, into.end - at);
        into.add(at, bytes.slice(bytes.position() + done, length));
        into.join(at, at + length, piece);
        done += length;
      }
      return true;
    } catch (IOException | RuntimeException e) {
      spoil(e.toString());
      return false;
    }
  }

  /** The segment holding {@code offset}, every segment below it put in the record. */
  private SegmentSums segmentAt(long offset) throws IOException {
    if (segment != null && offset < segment.end) {
      return segment;
    }
    putUpTo(offset - offset % ContentDigest.SEGMENT);
    segment = SegmentSums.empty(next, Math.min(size, next + ContentDigest.SEGMENT));
    next = segment.end;
    return segment;
  }

  /** Puts the current segment, then an empty one for each segment before {@code end}. */
  private void putUpTo(long end) throws IOException {
    if (segment != null) {
      record.put(segment);
      segment = null;
    }
    for (; next < end; next = Math.min(size, next + ContentDigest.SEGMENT)) {
      record.put(SegmentSums.empty(next, Math.min(size, next + ContentDigest.SEGMENT)));
    }
  }

  /**
   * Seals the complete {@code image} (synced) and publishes its record; false when the pieces made
   * none, and nothing is left behind then.
   */
  public boolean seal(Path image) {
    if (record == null) {
      return false;
    }
    try {
      putUpTo(size);
    } catch (IOException e) {
      spoil(e.toString());
      return false;
    }
    BlockRecords.seal(record, image);
    record = null;
    return true;
  }

  private void spoil(String why) {
    log.info("the pieces make no record of the image's blocks ({})", why);
    discard();
  }

  /** Drops the record unless it was sealed. */
  public void discard() {
    if (record != null) {
      record.discard();
      record = null;
    }
  }
}
