package io.thinvol.driver.peer.copy;

import com.sun.nio.file.ExtendedOpenOption;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes a pulled image's pieces at their offsets, in ascending order, each into a buffer it hands
 * out. A new image's pieces that are aligned to its filesystem's block go around the page cache
 * (O_DIRECT), gathered into writes of up to {@value #GATHER} bytes: a loop device reads its image
 * with direct I/O ({@code IoMode.DIRECT}), so the pages a buffered write cached would only be
 * copied there for nothing, and a large copy would push the node's applications out of the cache
 * and leave gigabytes dirty for the final fsync (docs/benchmarks.md). Anything else, and every
 * piece where the filesystem refuses O_DIRECT, is written through the page cache at once.
 */
final class ImageWriter implements AutoCloseable {

  static final int GATHER = 1 << 20;
  private static final Logger log = LoggerFactory.getLogger(ImageWriter.class);

  private final Path image;
  private final FileChannel buffered;
  private FileChannel direct; // null: no O_DIRECT (refused, failed, or not asked for)
  private final int alignment;
  private final ByteBuffer gathered; // aligned; [0, position) are the bytes from gatheredAt
  private long gatheredAt;
  private ByteBuffer scratch;
  private ByteBuffer handedOut;
  private long handedOutAt;
  private boolean handedOutDirect;

  private ImageWriter(Path image, FileChannel buffered, FileChannel direct, int alignment) {
    this.image = image;
    this.buffered = buffered;
    this.direct = direct;
    this.alignment = alignment;
    this.gathered = direct == null ? null : aligned(GATHER, alignment);
    this.scratch = ByteBuffer.allocateDirect(0);
  }

  /** A writer of the new file {@code image}, around the page cache where its filesystem allows. */
  static ImageWriter create(Path image) throws IOException {
    FileChannel buffered =
        FileChannel.open(image, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
    try {
      int alignment = Math.max(ZeroBlocks.BLOCK, (int) Files.getFileStore(image).getBlockSize());
      if (Integer.bitCount(alignment) != 1 || alignment > GATHER) {
        return new ImageWriter(image, buffered, null, 1);
      }
      FileChannel direct = openDirect(image);
      return new ImageWriter(image, buffered, direct, direct == null ? 1 : alignment);
    } catch (IOException | RuntimeException e) {
      buffered.close();
      throw e;
    }
  }

  /** A writer onto the existing {@code image} (a delta's base copy), through the page cache. */
  static ImageWriter onto(Path image) throws IOException {
    return new ImageWriter(image, FileChannel.open(image, StandardOpenOption.WRITE), null, 1);
  }

  private static FileChannel openDirect(Path image) {
    try {
      return FileChannel.open(image, StandardOpenOption.WRITE, ExtendedOpenOption.DIRECT);
    } catch (IOException | UnsupportedOperationException e) {
      log.info("writing {} through the page cache: its filesystem refuses O_DIRECT ({})", image, e);
      return null;
    }
  }

  /**
   * A buffer for the {@code length} bytes at {@code offset}, above every earlier piece's end, to
   * fill and hand back to {@link #written()} before the next piece is asked for.
   */
  ByteBuffer piece(long offset, int length) throws IOException {
    if (handedOut != null) {
      throw new IllegalStateException("the last piece was not written");
    }
    handedOutAt = offset;
    handedOutDirect = direct != null && offset % alignment == 0 && length % alignment == 0;
    if (handedOutDirect && length <= GATHER) {
      if (gathered.position() > 0
          && (offset != gatheredAt + gathered.position() || gathered.remaining() < length)) {
        flush();
      }
      if (gathered.position() == 0) {
        gatheredAt = offset;
      }
      handedOut = gathered.slice(gathered.position(), length);
      return handedOut;
    }
    if (scratch.capacity() < length) {
      // aligned, for a large piece written directly
      scratch = aligned((length + alignment - 1) / alignment * alignment, alignment);
    }
    handedOut = scratch.clear().limit(length).slice();
    return handedOut;
  }

  /** The piece last asked for is filled: gathered for a later write, or written now. */
  void written() throws IOException {
    ByteBuffer piece = handedOut;
    handedOut = null;
    if (piece == null) {
      throw new IllegalStateException("no piece was asked for");
    }
    if (!handedOutDirect) {
      writeFully(buffered, piece.clear(), handedOutAt);
    } else if (piece.capacity() <= GATHER) {
      gathered.position(gathered.position() + piece.capacity());
    } else {
      flush();
      writeDirect(piece.clear(), handedOutAt);
    }
  }

  /** A direct buffer of {@code capacity} bytes (a multiple of {@code alignment}), aligned. */
  private static ByteBuffer aligned(int capacity, int alignment) {
    return ByteBuffer.allocateDirect(capacity + alignment)
        .alignedSlice(alignment)
        .slice(0, capacity);
  }

  /** Writes what is gathered. */
  void flush() throws IOException {
    if (gathered == null || gathered.position() == 0) {
      return;
    }
    try {
      writeDirect(gathered.flip(), gatheredAt);
    } finally {
      gathered.clear();
    }
  }

  private void writeDirect(ByteBuffer bytes, long offset) throws IOException {
    if (direct == null) {
      writeFully(buffered, bytes, offset);
      return;
    }
    try {
      writeFully(direct, bytes, offset);
    } catch (IOException e) {
      // A filesystem that took the flag but not the write: the page cache then, for the rest too.
      log.info("writing {} through the page cache: O_DIRECT failed ({})", image, e.getMessage());
      direct.close();
      direct = null;
      writeFully(buffered, bytes.rewind(), offset);
    }
  }

  /** Writes what is gathered and syncs the file's data and size. */
  void finish() throws IOException {
    flush();
    buffered.force(true);
  }

  private static void writeFully(FileChannel out, ByteBuffer bytes, long offset)
      throws IOException {
    long at = offset;
    while (bytes.hasRemaining()) {
      at += out.write(bytes, at);
    }
  }

  @Override
  public void close() throws IOException {
    try (FileChannel first = buffered;
        FileChannel second = direct) {
      // both closed
    }
  }
}
