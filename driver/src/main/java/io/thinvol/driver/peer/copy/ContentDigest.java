package io.thinvol.driver.peer.copy;

import com.google.protobuf.ByteString;
import io.thinvol.driver.core.metadata.AllocatedRanges;
import io.thinvol.driver.core.metadata.ByteRange;
import io.thinvol.driver.core.metadata.RangeCursor;
import io.thinvol.driver.host.ImageExtents;
import io.thinvol.peer.v1.ImageDigest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * What a whole image reads as, whatever its filesystem keeps allocated where: each 32 MiB segment
 * hashed on its own (SHA-256 over every 4096-byte block that is not all zeros, as its offset and
 * its {@link Checksums}), in parallel, and SHA-256 over the image's size and the segments' digests.
 * Two images with the same digest read the same everywhere, so a delta applied onto a copy of its
 * base is checked against the snapshot itself, not against what was sent: a base that was not what
 * the sender thought, a change the delta missed, or a hole punched in the wrong place all fail it.
 * A block reads the same whether it is a hole or allocated zeros, so neither side's allocation
 * matters.
 */
public final class ContentDigest {

  // Small enough that little is left to read once a delta's last piece has arrived.
  static final long SEGMENT = 32L << 20;
  private static final int BLOCK = ZeroBlocks.BLOCK;
  private static final int BUFFER = 1 << 20;
  // Reading and hashing a segment takes a core; a copy's end waits for the slowest one.
  private static final ExecutorService HASHERS =
      Executors.newFixedThreadPool(
          Math.max(1, Math.min(4, Runtime.getRuntime().availableProcessors())),
          runnable -> {
            Thread thread = new Thread(runnable, "image-digest");
            thread.setDaemon(true);
            return thread;
          });

  private static final ThreadLocal<ByteBuffer> BUFFERS =
      ThreadLocal.withInitial(() -> ByteBuffer.allocateDirect(BUFFER));

  private ContentDigest() {}

  private record Segment(byte[] sha256, long dataBytes) {}

  /**
   * The digest of an image being completed in ascending order (a delta applied onto a copy of its
   * base): each segment is read as soon as nothing more will be written in it, while the rest is
   * still arriving.
   */
  public static final class Progressive {

    private final ImageExtents image;
    private final long size;
    private final AtomicBoolean stop;
    private final List<CompletableFuture<Segment>> segments = new ArrayList<>();
    private long started;

    /** {@code image} must stay open until {@link #finish()}'s digest is done. */
    public Progressive(ImageExtents image, long size, AtomicBoolean stop) {
      this.image = image;
      this.size = size;
      this.stop = stop;
    }

    /** Nothing more will be written below {@code offset}: its segments may be read. */
    public void completeUpTo(long offset) {
      while (started < size && Math.min(size, started + SEGMENT) <= offset) {
        long start = started;
        long end = Math.min(size, started + SEGMENT);
        segments.add(
            CompletableFuture.supplyAsync(() -> segment(image, start, end, stop), HASHERS));
        started = end;
      }
    }

    /** The image is complete: the digest once every segment is read. */
    public CompletableFuture<ImageDigest> finish() {
      completeUpTo(size);
      return CompletableFuture.allOf(segments.toArray(CompletableFuture[]::new))
          .thenApply(
              done -> {
                MessageDigest whole = sha256();
                whole.update(ByteBuffer.allocate(Long.BYTES).putLong(size).flip());
                long dataBytes = 0;
                for (CompletableFuture<Segment> future : segments) {
                  Segment segment = future.join();
                  whole.update(segment.sha256());
                  dataBytes += segment.dataBytes();
                }
                return ImageDigest.newBuilder()
                    .setSha256(ByteString.copyFrom(whole.digest()))
                    .setDataBytes(dataBytes)
                    .build();
              });
    }

    /** Stops the reads under way and waits for them: the image may be closed after. */
    public void abandon() {
      stop.set(true);
      CompletableFuture.allOf(segments.toArray(CompletableFuture[]::new))
          .exceptionally(failed -> null)
          .join();
    }
  }

  /** The digest a {@link Progressive} reads; its read failure thrown as such. */
  public static ImageDigest await(CompletableFuture<ImageDigest> digest) throws IOException {
    try {
      return digest.join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof UncheckedIOException io) {
        throw io.getCause();
      }
      throw e;
    }
  }

  private static Segment segment(ImageExtents image, long start, long end, AtomicBoolean stop) {
    MessageDigest sha256 = sha256();
    Checksums checksums = new Checksums();
    ByteBuffer records = ByteBuffer.allocate(BUFFER / BLOCK * (Long.BYTES + Checksums.BYTES));
    ByteBuffer buffer = BUFFERS.get(); // one per hashing thread: direct memory is freed late
    long dataBytes = 0;
    long done = start;
    try {
      // Not closed: closing the cursor would close the caller's image.
      RangeCursor ranges = new AllocatedRanges(image, end, start);
      for (ByteRange range = ranges.next(); range != null; range = ranges.next()) {
        // Whole 4096-byte blocks, each once, whatever block the data dir's filesystem has.
        long from = Math.max(done, range.offset() - range.offset() % BLOCK);
        long to = Math.min(end, (range.end() + BLOCK - 1) / BLOCK * BLOCK);
        for (long at = from; at < to; at += BUFFER) {
          if (stop.get()) {
            throw new CancellationException("the digest is no longer needed");
          }
          int length = (int) Math.min(BUFFER, to - at);
          image.read(buffer.clear().limit(length), at);
          records.clear();
          for (int offset = 0; offset < length; offset += BLOCK) {
            if (!ZeroBlocks.isZero(buffer, offset)) {
              ByteBuffer block = buffer.slice(offset, Math.min(BLOCK, length - offset));
              dataBytes += block.remaining();
              checksums.put(block, records.putLong(at + offset));
            }
          }
          sha256.update(records.flip());
        }
        done = Math.max(done, to);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new Segment(sha256.digest(), dataBytes);
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
