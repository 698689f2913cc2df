package io.thinvol.driver.peer.copy;

import io.thinvol.driver.core.metadata.ByteRange;
import io.thinvol.driver.host.ImageExtents;
import io.thinvol.peer.v1.ImageDigest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A delta from base snapshot S1 to S2 as its sender finds it when S1's blocks are recorded ({@link
 * BaseBlocks}): S2 is checksummed segment by segment, what it still shares on disk with S1 taken
 * from S1's record and every other block read, and a block whose checksums (or whose being all
 * zeros) differ from S1's record is a change. The same checksums make the digest of the whole of S2
 * the delta ends with. So S2 is read once and S1 not at all, where comparing the two byte for byte
 * read both and the digest read S2 again: without reflinks, 3 GiB read for a volume holding 1 GiB.
 * A block that changed with both its checksums unchanged (a chance of 2^-64) is missed, as the
 * digest of version 2 would miss it anyway. The segments are checksummed a few ahead, on the
 * digest's threads, while the changes found are sent.
 */
final class RecordedDelta implements DeltaParts {

  private static final Logger log = LoggerFactory.getLogger(RecordedDelta.class);
  private static final int BLOCK = ZeroBlocks.BLOCK;
  private static final int AHEAD = 4;

  private final ImageExtents target;
  private final long size;
  private final BaseBlocks base;
  private final AtomicBoolean stop = new AtomicBoolean();
  private final Deque<CompletableFuture<SegmentSums>> computing = new ArrayDeque<>();
  private final Deque<ByteRange> found = new ArrayDeque<>();
  private final ContentDigest.Combined digest;
  private long submitted; // where the segments not yet asked for start
  private long changedBytes;
  private long runStart = -1;
  private long runEnd = -1;

  RecordedDelta(ImageExtents target, long size, BaseBlocks base) {
    this.target = target;
    this.size = size;
    this.base = base;
    this.digest = new ContentDigest.Combined(size);
    while (computing.size() < AHEAD && submitted < size) {
      submitNext();
    }
  }

  @Override
  public long capacityBytes() {
    return size;
  }

  @Override
  public ByteRange next() throws IOException {
    while (found.isEmpty() && !computing.isEmpty()) {
      SegmentSums segment = ContentDigest.join(computing.poll());
      if (submitted < size) {
        submitNext();
      }
      compare(segment);
      digest.add(ContentDigest.Segment.of(segment));
    }
    if (found.isEmpty()) {
      flush();
    }
    return found.poll();
  }

  /** The digest of the whole of S2, once every change was taken; read in full if S1 changed. */
  @Override
  public ImageDigest digest() throws IOException {
    if (base.stillSealed()) {
      log.info(
          "the digest of {} bytes read {} bytes; the base's record vouched for the rest, and showed"
              + " {} bytes changed since it",
          size,
          digest.readBytes(),
          changedBytes);
      return digest.digest();
    }
    ContentDigest.Progressive again =
        new ContentDigest.Progressive(target, size, stop, null, null, true);
    try {
      return ContentDigest.await(again.finish());
    } finally {
      again.abandon();
    }
  }

  private void submitNext() {
    long start = submitted;
    long end = Math.min(size, start + ContentDigest.SEGMENT);
    computing.add(
        ContentDigest.onHashers(
            () -> {
              try {
                return SegmentSums.of(target, start, end, stop, base);
              } catch (IOException e) {
                throw new UncheckedIOException(e);
              }
            }));
    submitted = end;
  }

  /** The blocks of S2's {@code segment} that S1's record says read otherwise in S1. */
  private void compare(SegmentSums segment) throws IOException {
    int[] theirs = base.recorded(segment.start);
    int recorded = theirs == null ? 0 : theirs.length / 2;
    for (int block = 0; block < segment.data.length; block++) {
      boolean changed;
      if (theirs == null) {
        changed = true; // a damaged slice of the record: the whole segment is sent
      } else {
        boolean ours = segment.data[block];
        boolean was = block < recorded && (theirs[2 * block] != 0 || theirs[2 * block + 1] != 0);
        changed =
            ours != was
                || ours
                    && (segment.sums[2 * block] != theirs[2 * block]
                        || segment.sums[2 * block + 1] != theirs[2 * block + 1]);
      }
      long offset = segment.start + (long) block * BLOCK;
      if (changed) {
        changed(offset, Math.min(offset + BLOCK, segment.end));
      } else {
        flush();
      }
    }
  }

  private void changed(long from, long to) {
    if (runEnd != from) {
      flush();
      runStart = from;
    }
    runEnd = to;
    changedBytes += to - from;
  }

  private void flush() {
    if (runStart >= 0) {
      found.add(new ByteRange(runStart, runEnd - runStart));
      runStart = -1;
      runEnd = -1;
    }
  }

  /** Stops the segments under way and waits for them; closes S1's record, not S2. */
  @Override
  public void close() throws IOException {
    stop.set(true);
    CompletableFuture.allOf(computing.toArray(CompletableFuture[]::new))
        .exceptionally(failed -> null)
        .join();
    base.close();
  }
}
