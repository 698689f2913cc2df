package io.thinvol.driver.host;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;

/**
 * A full copy of an image that keeps holes as holes, as {@code cp --sparse=always} makes it, but in
 * this process, so that the caller sees every piece it copies: a snapshot's block checksums are
 * taken from the pieces on their way (docs/decisions.md), with no second read of the image. Only
 * the source's data ranges are read (SEEK_DATA), in pieces of whole 4096-byte blocks in ascending
 * order; blocks of zeros among them are left holes.
 */
public final class SparseCopy {

  /** What a copy read, piece by piece. */
  @FunctionalInterface
  public interface Pieces {

    /** No caller. */
    Pieces NONE = (offset, bytes) -> {};

    /**
     * The bytes the image holds at {@code offset}: whole 4096-byte blocks (but the image's last) in
     * ascending order; what no piece covers is a hole. No position of {@code bytes} may move.
     */
    void add(long offset, ByteBuffer bytes);
  }

  private static final int BLOCK = ZeroBlocks.BLOCK;
  private static final int PIECE = 1 << 20;

  private SparseCopy() {}

  /**
   * Copies {@code from} to the new file {@code to} (not synced); ends with an {@link
   * InterruptedIOException} at the next piece once its thread is interrupted.
   */
  static void copy(Path from, Path to, Pieces pieces) throws IOException {
    if (!Files.isRegularFile(from, LinkOption.NOFOLLOW_LINKS)) {
      throw new IOException(from + " is not an image file");
    }
    Files.createFile(to);
    try (ImageExtents source = ImageExtents.open(from);
        RandomAccessFile file = new RandomAccessFile(to.toFile(), "rw")) {
      long size = source.size();
      file.setLength(size);
      FileChannel target = file.getChannel();
      ByteBuffer buffer = ByteBuffer.allocateDirect(PIECE);
      long done = 0;
      for (long data = source.nextData(0); data >= 0; data = source.nextData(done)) {
        long start = Math.max(done, data - data % BLOCK);
        long end = Math.min(size, roundUp(source.nextHole(data)));
        for (long at = start; at < end; at += PIECE) {
          if (Thread.interrupted()) {
            throw new InterruptedIOException("the copy of " + from + " was stopped");
          }
          source.read(buffer.clear().limit((int) Math.min(PIECE, end - at)), at);
          buffer.flip();
          pieces.add(at, buffer);
          writeData(target, buffer, at);
        }
        done = end;
      }
    }
  }

  /** Writes the runs of {@code bytes} that are not all zeros, at their offsets from {@code at}. */
  private static void writeData(FileChannel target, ByteBuffer bytes, long at) throws IOException {
    int limit = bytes.limit();
    for (int start = 0, end; start < limit; start = end) {
      end = ZeroBlocks.runEnd(bytes, start);
      if (!ZeroBlocks.isZero(bytes, start)) {
        ByteBuffer run = bytes.slice(start, end - start);
        while (run.hasRemaining()) {
          target.write(run, at + start + run.position());
        }
      }
    }
  }

  private static long roundUp(long offset) {
    return (offset + BLOCK - 1) / BLOCK * BLOCK;
  }
}
