package io.thinvol.driver.host;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Optional;

/**
 * Whether a device holds nothing at all where any signature could be: filesystems, LVM, RAID, LUKS
 * and partition tables keep theirs in the first or the last MiB of a device. A blank device may be
 * formatted without asking blkid; anything else is probed by blkid first.
 */
final class BlankCheck {

  private static final int REGION = 1 << 20;

  private BlankCheck() {}

  /** Reads the device node itself: its backing file's path may be one of another namespace. */
  static boolean isBlank(Path device, long size) {
    try (FileChannel channel = FileChannel.open(device, StandardOpenOption.READ)) {
      return isZero(channel, 0, Math.min(size, REGION))
          && isZero(channel, Math.max(0, size - REGION), size);
    } catch (IOException e) {
      return false; // unknown: let blkid decide
    }
  }

  /**
   * Whether the image behind a device this call attached holds no data where signatures live,
   * answered from its extent map (SEEK_DATA) without reading the device. Sound only for a device
   * nobody wrote through yet: its own page cache cannot hold data the image does not show. Holes
   * read as zeros, and SEEK_DATA may report a hole as data but never data as a hole, so "no data"
   * proves blank; any other answer (data, a filesystem without SEEK_DATA, an image that is not the
   * device's backing file or not of its size) is false and the device is read instead.
   */
  static boolean imageIsBlank(Path image, LoopDevice device, long size) {
    if (!FileId.of(image).equals(Optional.of(device.backingFile()))) {
      return false;
    }
    try (ImageExtents extents = ImageExtents.open(image)) {
      return extents.size() == size
          && noDataIn(extents, 0, Math.min(size, REGION))
          && noDataIn(extents, Math.max(0, size - REGION), size);
    } catch (IOException | HostCommandException e) {
      return false; // unknown: read the device
    }
  }

  private static boolean noDataIn(ImageExtents extents, long from, long to) throws IOException {
    long data = extents.nextData(from);
    return data < 0 || data >= to;
  }

  private static final ByteBuffer ZEROS = ByteBuffer.allocateDirect(64 * 1024).asReadOnlyBuffer();

  private static boolean isZero(FileChannel channel, long from, long to) throws IOException {
    ByteBuffer buffer = ByteBuffer.allocateDirect(ZEROS.capacity());
    long position = from;
    while (position < to) {
      buffer.clear().limit((int) Math.min(buffer.capacity(), to - position));
      int read = channel.read(buffer, position);
      if (read <= 0) {
        return true;
      }
      buffer.flip();
      // mismatch() compares in vectorised chunks; a byte loop costs milliseconds here
      if (buffer.mismatch(ZEROS.duplicate().limit(read)) != -1) {
        return false;
      }
      position += read;
    }
    return true;
  }
}
