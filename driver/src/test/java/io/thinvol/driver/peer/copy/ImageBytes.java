package io.thinvol.driver.peer.copy;

import io.thinvol.driver.host.ImageExtents;
import io.thinvol.peer.v1.ImageDigest;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;

/** Writes and reads of the images the digest tests build. */
final class ImageBytes {

  private ImageBytes() {}

  /** The digest of the whole {@code image} of {@code size} bytes, every block read. */
  static ImageDigest fullRead(Path image, long size) throws Exception {
    try (ImageExtents extents = ImageExtents.open(image)) {
      ContentDigest.Progressive reading =
          new ContentDigest.Progressive(extents, size, new AtomicBoolean());
      return ContentDigest.await(reading.finish());
    }
  }

  static byte[] random(Random random, int length) {
    byte[] bytes = new byte[length];
    random.nextBytes(bytes);
    return bytes;
  }

  static void write(FileChannel out, long at, byte[] bytes) throws IOException {
    ByteBuffer buffer = ByteBuffer.wrap(bytes);
    while (buffer.hasRemaining()) {
      out.write(buffer, at + buffer.position());
    }
  }
}
