package io.thinvol.driver.peer.copy;

import io.thinvol.driver.host.DeltaSpool;
import io.thinvol.driver.host.SparseFiles;
import io.thinvol.driver.host.WriteBehind;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Where a pull's pieces go as they arrive: written into the image at their offsets (a delta's runs
 * of zeros punched out), or kept in a delta's spool to be applied in place once checked.
 */
interface PieceSink extends AutoCloseable {

  /** The piece's remaining bytes, for {@code offset}; its position is not moved. */
  void bytes(long offset, ByteBuffer bytes) throws IOException;

  /** A delta's run of zeros of {@code length} bytes at {@code offset}. */
  void zeros(long offset, long length) throws IOException;

  /** Every piece is in: durable from here on. */
  void complete() throws IOException;

  @Override
  void close() throws IOException;

  /**
   * Into {@code image}: a new file for a whole copy, the copy of the base for a delta. The disk
   * writes the pieces out as they come ({@link WriteBehind}), so the sync at the end is short.
   */
  static PieceSink image(Path image, boolean create) throws IOException {
    FileChannel out =
        create
            ? FileChannel.open(image, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)
            : FileChannel.open(image, StandardOpenOption.WRITE);
    WriteBehind behind;
    try {
      behind = WriteBehind.of(image);
    } catch (RuntimeException e) {
      out.close();
      throw e;
    }
    return new PieceSink() {
      @Override
      public void bytes(long offset, ByteBuffer bytes) throws IOException {
        ByteBuffer data = bytes.duplicate();
        long at = offset;
        while (data.hasRemaining()) {
          at += out.write(data, at);
        }
        behind.writtenTo(at);
      }

      @Override
      public void zeros(long offset, long length) {
        SparseFiles.punch(image, offset, length);
      }

      @Override
      public void complete() throws IOException {
        out.force(true);
      }

      @Override
      public void close() throws IOException {
        try (out) {
          behind.close();
        }
      }
    };
  }

  /** Into {@code spool}, which its owner closes. */
  static PieceSink spool(DeltaSpool spool) {
    return new PieceSink() {
      @Override
      public void bytes(long offset, ByteBuffer bytes) throws IOException {
        spool.bytes(offset, bytes);
      }

      @Override
      public void zeros(long offset, long length) throws IOException {
        spool.zeros(offset, length);
      }

      @Override
      public void complete() throws IOException {
        spool.finish();
      }

      @Override
      public void close() {}
    };
  }
}
