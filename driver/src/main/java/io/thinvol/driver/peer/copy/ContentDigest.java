package io.thinvol.driver.peer.copy;

import com.google.protobuf.ByteString;
import io.thinvol.driver.host.ImageExtents;
import io.thinvol.peer.v1.ImageDigest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
  // Reading and hashing a segment takes a core; a copy's end waits for the slowest one.
  private static final ExecutorService HASHERS =
      Executors.newFixedThreadPool(
          Math.max(1, Math.min(4, Runtime.getRuntime().availableProcessors())),
          runnable -> {
            Thread thread = new Thread(runnable, "image-digest");
            thread.setDaemon(true);
            return thread;
          });

  private static final Logger log = LoggerFactory.getLogger(ContentDigest.class);

  private ContentDigest() {}

  /** One segment's part of the digest: its SHA-256, its bytes of data, and what it read. */
  record Segment(byte[] sha256, long dataBytes, long readBytes) {

    static Segment of(SegmentSums sums) {
      MessageDigest sha256 = ContentDigest.sha256();
      long dataBytes = sums.hashInto(sha256);
      return new Segment(sha256.digest(), dataBytes, sums.readBytes());
    }
  }

  /** The digest of a whole image, its segments added in order. */
  static final class Combined {
    private final MessageDigest whole = ContentDigest.sha256();
    private long dataBytes;
    private long readBytes;

    Combined(long size) {
      whole.update(ByteBuffer.allocate(Long.BYTES).putLong(size).flip());
    }

    void add(Segment segment) {
      whole.update(segment.sha256());
      dataBytes += segment.dataBytes();
      readBytes += segment.readBytes();
    }

    /** The bytes the segments read from the image (the rest came from a record). */
    long readBytes() {
      return readBytes;
    }

    ImageDigest digest() {
      return ImageDigest.newBuilder()
          .setSha256(ByteString.copyFrom(whole.digest()))
          .setDataBytes(dataBytes)
          .build();
    }
  }

  /** Runs {@code work} on the threads that read and hash segments. */
  static <T> CompletableFuture<T> onHashers(Supplier<T> work) {
    return CompletableFuture.supplyAsync(work, HASHERS);
  }

  /**
   * The digest of an image being completed in ascending order (a delta applied onto a copy of its
   * base): each segment is read as soon as nothing more will be written in it, while the rest is
   * still arriving. With a {@link BaseBlocks}, what the base vouches for is not read, and unless
   * the image is settled (a snapshot) nothing is looked at before {@link #finish()}: the result's
   * disk map is only final once every write is. A base whose seal broke meanwhile is not believed:
   * the whole image is then read again.
   */
  public static final class Progressive {

    private final ImageExtents image;
    private final long size;
    private final AtomicBoolean stop;
    private final BaseBlocks base;
    private final BlockSums.Writer record;
    private final boolean settled;
    private final List<CompletableFuture<Segment>> segments = new ArrayList<>();
    private long started;
    private volatile long readBytes;
    private volatile Progressive again;

    /** {@code image} must stay open until {@link #finish()}'s digest is done. */
    public Progressive(ImageExtents image, long size, AtomicBoolean stop) {
      this(image, size, stop, null, null, false);
    }

    /**
     * As above, taking what {@code base} vouches for (may be null) and recording every segment's
     * block checksums into {@code record} (may be null); {@code settled} when nothing writes the
     * image any more.
     */
    Progressive(
        ImageExtents image,
        long size,
        AtomicBoolean stop,
        BaseBlocks base,
        BlockSums.Writer record,
        boolean settled) {
      this.image = image;
      this.size = size;
      this.stop = stop;
      this.base = base;
      this.record = record;
      this.settled = settled;
    }

    /** Nothing more will be written below {@code offset}: its segments may be read. */
    public void completeUpTo(long offset) {
      if (base != null && !settled) {
        return; // the blocks shared with the base are known once every write is on disk
      }
      start(offset);
    }

    private void start(long offset) {
      while (started < size && Math.min(size, started + SEGMENT) <= offset) {
        long start = started;
        long end = Math.min(size, started + SEGMENT);
        segments.add(
            CompletableFuture.supplyAsync(
                () -> segment(image, start, end, stop, base, record), HASHERS));
        started = end;
      }
    }

    /** The image is complete (and synced, with a base): the digest once every segment is read. */
    public CompletableFuture<ImageDigest> finish() {
      start(size);
      CompletableFuture<ImageDigest> digest =
          CompletableFuture.allOf(segments.toArray(CompletableFuture[]::new))
              .thenApply(done -> combine());
      return base == null ? digest : digest.thenCompose(this::unlessBaseChanged);
    }

    private ImageDigest combine() {
      Combined whole = new Combined(size);
      segments.forEach(segment -> whole.add(segment.join()));
      readBytes = whole.readBytes();
      return whole.digest();
    }

    private CompletableFuture<ImageDigest> unlessBaseChanged(ImageDigest digest) {
      try {
        if (base.stillSealed()) {
          log.info(
              "the digest of {} bytes read {} bytes; the base's record vouched for the rest",
              size,
              readBytes);
          return CompletableFuture.completedFuture(digest);
        }
      } catch (IOException e) {
        return CompletableFuture.failedFuture(new UncheckedIOException(e));
      }
      again = new Progressive(image, size, stop, null, record, true);
      return again.finish();
    }

    /** The bytes {@link #finish()}'s digest read from the image (the rest came from the base). */
    long readBytes() {
      Progressive second = again;
      return second != null ? second.readBytes() : readBytes;
    }

    /** Stops the reads under way and waits for them: the image may be closed after. */
    public void abandon() {
      stop.set(true);
      CompletableFuture.allOf(segments.toArray(CompletableFuture[]::new))
          .exceptionally(failed -> null)
          .join();
      Progressive second = again;
      if (second != null) {
        second.abandon();
      }
    }
  }

  /** The digest a {@link Progressive} reads; its read failure thrown as such. */
  public static ImageDigest await(CompletableFuture<ImageDigest> digest) throws IOException {
    return join(digest);
  }

  /** What a reading of an image gives; its read failure thrown as such. */
  static <T> T join(CompletableFuture<T> reading) throws IOException {
    try {
      return reading.join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof UncheckedIOException io) {
        throw io.getCause();
      }
      throw e;
    }
  }

  private static Segment segment(
      ImageExtents image,
      long start,
      long end,
      AtomicBoolean stop,
      BaseBlocks base,
      BlockSums.Writer record) {
    try {
      SegmentSums sums = SegmentSums.of(image, start, end, stop, base);
      if (record != null) {
        record.put(sums);
      }
      return Segment.of(sums);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
