package io.thinvol.driver.host;

import com.sun.jna.LastErrorException;
import com.sun.jna.Memory;
import com.sun.jna.NativeLong;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * Where an image file holds data, read through one open descriptor: its data and holes
 * (SEEK_DATA/SEEK_HOLE), the disk blocks its data lives in (FIEMAP), and its bytes. The descriptor
 * keeps reading the same file even if its name is removed meanwhile.
 */
public final class ImageExtents implements AutoCloseable {

  // _IOWR('f', 11, struct fiemap): struct fiemap is 32 bytes, each fiemap_extent 56
  private static final NativeLong FS_IOC_FIEMAP = new NativeLong(0xC020660BL);
  private static final int FIEMAP_HEADER = 32;
  private static final int FIEMAP_EXTENT = 56;
  private static final int FIEMAP_BATCH = 256;
  private static final int FIEMAP_FLAG_SYNC = 0x1;
  private static final int FIEMAP_EXTENT_LAST = 0x1;
  // Extents whose physical address does not name the data's own disk blocks, or whose data is not
  // yet on disk: never treated as shared.
  private static final int FIEMAP_EXTENT_UNSTABLE =
      0x2 /* UNKNOWN */
          | 0x4 /* DELALLOC */
          | 0x8 /* ENCODED */
          | 0x80 /* DATA_ENCRYPTED */
          | 0x100 /* NOT_ALIGNED */
          | 0x200 /* DATA_INLINE */
          | 0x400 /* DATA_TAIL */;
  private static final int EOPNOTSUPP = 95;
  private static final int ENOTTY = 25;

  /**
   * A run of a file's bytes and the disk address of its first byte.
   *
   * @param stable whether the address is the data's own, settled disk location (two files whose
   *     stable extents map a byte to the same address share that byte)
   */
  public record PhysicalExtent(long logical, long physical, long length, boolean stable) {
    public long end() {
      return logical + length;
    }
  }

  private final Path file;
  private final FileChannel channel;
  private final int fd;
  private final long size;

  private ImageExtents(Path file, FileChannel channel, int fd, long size) {
    this.file = file;
    this.channel = channel;
    this.fd = fd;
    this.size = size;
  }

  /**
   * Opens {@code file} for reading; a missing file is a {@link java.nio.file.NoSuchFileException}.
   */
  public static ImageExtents open(Path file) throws IOException {
    FileChannel channel = FileChannel.open(file, StandardOpenOption.READ);
    try {
      int fd = Libc.INSTANCE.open(file.toString(), Libc.O_RDONLY | Libc.O_CLOEXEC);
      return new ImageExtents(file, channel, fd, channel.size());
    } catch (LastErrorException e) {
      channel.close();
      throw new IOException("cannot open " + file + ": " + e.getMessage(), e);
    } catch (IOException | RuntimeException e) {
      channel.close();
      throw e;
    }
  }

  public long size() {
    return size;
  }

  /** The first offset at or after {@code offset} that holds data, or -1 when only holes follow. */
  public long nextData(long offset) throws IOException {
    if (offset >= size) {
      return -1;
    }
    try {
      return Libc.INSTANCE.lseek(fd, offset, Libc.SEEK_DATA);
    } catch (LastErrorException e) {
      if (e.getErrorCode() == Errno.ENXIO) {
        return -1;
      }
      throw new IOException("cannot find data in " + file + ": " + e.getMessage(), e);
    }
  }

  /** The first offset at or after {@code offset} in a hole; the file's size at most. */
  public long nextHole(long offset) throws IOException {
    if (offset >= size) {
      return size;
    }
    try {
      return Libc.INSTANCE.lseek(fd, offset, Libc.SEEK_HOLE);
    } catch (LastErrorException e) {
      throw new IOException("cannot find holes in " + file + ": " + e.getMessage(), e);
    }
  }

  /**
   * The disk extents of {@code [from, to)}, in order; empty where the filesystem cannot tell (no
   * FIEMAP), so callers must not rely on extents to prove anything but sharing.
   */
  public List<PhysicalExtent> physical(long from, long to) throws IOException {
    List<PhysicalExtent> extents = new ArrayList<>();
    try (Memory map = new Memory(FIEMAP_HEADER + (long) FIEMAP_BATCH * FIEMAP_EXTENT)) {
      long start = from;
      while (start < to) {
        map.clear();
        map.setLong(0, start);
        map.setLong(8, to - start);
        map.setInt(16, FIEMAP_FLAG_SYNC);
        map.setInt(24, FIEMAP_BATCH);
        try {
          Libc.INSTANCE.ioctl(fd, FS_IOC_FIEMAP, map);
        } catch (LastErrorException e) {
          if (e.getErrorCode() == EOPNOTSUPP || e.getErrorCode() == ENOTTY) {
            return List.of();
          }
          throw new IOException("cannot map the extents of " + file + ": " + e.getMessage(), e);
        }
        int mapped = map.getInt(20);
        if (mapped == 0) {
          break;
        }
        boolean last = false;
        for (int i = 0; i < mapped; i++) {
          long at = FIEMAP_HEADER + (long) i * FIEMAP_EXTENT;
          int flags = map.getInt(at + 40);
          extents.add(
              new PhysicalExtent(
                  map.getLong(at),
                  map.getLong(at + 8),
                  map.getLong(at + 16),
                  (flags & FIEMAP_EXTENT_UNSTABLE) == 0));
          last = (flags & FIEMAP_EXTENT_LAST) != 0;
        }
        start = extents.get(extents.size() - 1).end();
        if (last) {
          break;
        }
      }
    }
    return extents;
  }

  /**
   * Fills {@code buffer} from {@code position}; bytes past the end of the file read as zeros, as
   * they do on the volume's device.
   */
  public void read(ByteBuffer buffer, long position) throws IOException {
    long at = position;
    while (buffer.hasRemaining()) {
      int read = channel.read(buffer, at);
      if (read < 0) {
        while (buffer.hasRemaining()) {
          buffer.put((byte) 0);
        }
        return;
      }
      at += read;
    }
  }

  @Override
  public void close() throws IOException {
    try {
      Libc.INSTANCE.close(fd);
    } catch (LastErrorException e) {
      // a read-only descriptor has nothing left to flush
    } finally {
      channel.close();
    }
  }
}
