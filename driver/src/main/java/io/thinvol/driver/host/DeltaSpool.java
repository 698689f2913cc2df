package io.thinvol.driver.host;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.zip.CRC32C;

/**
 * The changes of a delta as they arrived, kept in a file of their own before any of them is written
 * where they belong: a redo journal. Once the file is complete and synced, applying it onto the
 * image it was pulled for can be repeated any number of times with the same result (every change is
 * bytes or a hole at a fixed place), so a crash in the middle of an application is finished by
 * applying it again.
 *
 * <p>The file: an 8-byte magic, then records of a 24-byte head (offset, length, kind, and the
 * CRC-32C of the head's first 20 bytes and the record's data) and, for bytes, the data; an end
 * record (kind {@value #END}, the count of records before it as its offset) closes it. A file
 * without its end or with a record that fails its checksum is refused whole.
 */
public final class DeltaSpool implements AutoCloseable {

  private static final long MAGIC = 0x5456_5350_4f4f_4c01L; // "TVSPOOL", version 1
  private static final int HEAD = 24;
  private static final int BYTES = 0;
  private static final int ZEROS = 1;
  private static final int END = 2;
  private static final int MAX_RECORD = 1 << 20;

  private final Path file;
  private final FileChannel channel;
  private final ByteBuffer head = ByteBuffer.allocate(HEAD);
  private long records;
  private long dataBytes;

  private DeltaSpool(Path file, FileChannel channel) {
    this.file = file;
    this.channel = channel;
  }

  /** A new spool at {@code file}, which must not exist. */
  public static DeltaSpool create(Path file) throws IOException {
    FileChannel channel =
        FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
    try {
      writeFully(channel, ByteBuffer.allocate(Long.BYTES).putLong(0, MAGIC));
    } catch (IOException e) {
      channel.close();
      throw e;
    }
    return new DeltaSpool(file, channel);
  }

  public Path file() {
    return file;
  }

  /** The bytes of data spooled so far (runs of zeros not counted). */
  public long dataBytes() {
    return dataBytes;
  }

  /** Keeps {@code bytes} (its remaining bytes; its position is not moved) for {@code offset}. */
  public void bytes(long offset, ByteBuffer bytes) throws IOException {
    ByteBuffer rest = bytes.duplicate();
    while (rest.hasRemaining()) {
      ByteBuffer part = rest.slice(rest.position(), Math.min(rest.remaining(), MAX_RECORD));
      long at = offset + rest.position() - bytes.position();
      append(at, part.remaining(), BYTES, part);
      rest.position(rest.position() + part.remaining());
    }
    dataBytes += bytes.remaining();
  }

  /** Keeps a run of zeros (a hole to punch) of {@code length} bytes at {@code offset}. */
  public void zeros(long offset, long length) throws IOException {
    append(offset, length, ZEROS, null);
  }

  /** Closes the spool with its end record and syncs it: it may be applied from now on. */
  public void finish() throws IOException {
    append(records, 0, END, null);
    channel.force(true);
  }

  private void append(long offset, long length, int kind, ByteBuffer data) throws IOException {
    head.clear();
    head.putLong(offset).putLong(length).putInt(kind);
    CRC32C crc = new CRC32C();
    crc.update(head.array(), 0, 20);
    if (data != null) {
      crc.update(data.duplicate());
    }
    head.putInt((int) crc.getValue()).flip();
    writeFully(channel, head);
    if (data != null) {
      writeFully(channel, data.duplicate());
    }
    records++;
  }

  @Override
  public void close() throws IOException {
    channel.close();
  }

  /**
   * Applies the spool at {@code spool} onto {@code image}: each record's bytes written at its
   * offset, each run of zeros punched out (the size kept); not synced. Refuses a spool that is not
   * whole before it writes anything: the records are checked first, then applied.
   *
   * @return the records applied
   */
  public static long apply(Path spool, Path image) throws IOException {
    check(spool);
    try (FileChannel in = FileChannel.open(spool, StandardOpenOption.READ);
        FileChannel out = FileChannel.open(image, StandardOpenOption.WRITE)) {
      return walk(
          in,
          spool,
          (offset, length, kind, data) -> {
            if (kind == ZEROS) {
              SparseFiles.punch(image, offset, length);
            } else {
              writeFully(out, data, offset);
            }
          });
    }
  }

  /** Reads the whole spool, checking every record and its end; IOException if it is not whole. */
  public static void check(Path spool) throws IOException {
    try (FileChannel in = FileChannel.open(spool, StandardOpenOption.READ)) {
      walk(in, spool, (offset, length, kind, data) -> {});
    }
  }

  private interface Visitor {
    void visit(long offset, long length, int kind, ByteBuffer data) throws IOException;
  }

  private static long walk(FileChannel in, Path spool, Visitor visitor) throws IOException {
    ByteBuffer magic = ByteBuffer.allocate(Long.BYTES);
    readFully(in, magic, 0, spool);
    if (magic.getLong(0) != MAGIC) {
      throw new IOException(spool + " is not a delta spool");
    }
    ByteBuffer head = ByteBuffer.allocate(HEAD);
    ByteBuffer data = ByteBuffer.allocateDirect(MAX_RECORD);
    long at = Long.BYTES;
    for (long record = 0; ; record++) {
      head.clear();
      readFully(in, head, at, spool);
      long offset = head.getLong(0);
      long length = head.getLong(8);
      int kind = head.getInt(16);
      CRC32C crc = new CRC32C();
      crc.update(head.array(), 0, 20);
      at += HEAD;
      data.clear();
      if (kind == BYTES) {
        if (length <= 0 || length > MAX_RECORD) {
          throw new IOException(spool + ": record " + record + " has " + length + " bytes");
        }
        data.limit((int) length);
        readFully(in, data, at, spool);
        data.flip();
        crc.update(data.duplicate());
        at += length;
      } else if (kind != ZEROS && kind != END || length < 0) {
        throw new IOException(spool + ": record " + record + " is of no known kind");
      }
      if ((int) crc.getValue() != head.getInt(20)) {
        throw new IOException(spool + ": record " + record + " fails its checksum");
      }
      if (kind == END) {
        if (offset != record || at != in.size()) {
          throw new IOException(spool + " does not end where its end record says");
        }
        return record;
      }
      visitor.visit(offset, length, kind, data);
    }
  }

  private static void readFully(FileChannel in, ByteBuffer into, long at, Path spool)
      throws IOException {
    while (into.hasRemaining()) {
      if (in.read(into, at + into.position()) < 0) {
        throw new IOException(spool + " ends before its end record");
      }
    }
  }

  private static void writeFully(FileChannel out, ByteBuffer data) throws IOException {
    while (data.hasRemaining()) {
      out.write(data);
    }
  }

  private static void writeFully(FileChannel out, ByteBuffer data, long offset) throws IOException {
    long at = offset;
    while (data.hasRemaining()) {
      at += out.write(data, at);
    }
  }
}
