package io.thinvol.driver.host;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

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
