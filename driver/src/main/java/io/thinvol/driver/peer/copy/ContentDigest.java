package io.thinvol.driver.peer.copy;

import com.google.protobuf.ByteString;
import io.thinvol.driver.core.metadata.AllocatedRanges;
import io.thinvol.driver.core.metadata.ByteRange;
import io.thinvol.driver.core.metadata.RangeCursor;
import io.thinvol.driver.host.ImageExtents;
import io.thinvol.peer.v1.ImageDigest;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * What a whole image reads as, whatever its filesystem keeps allocated where: SHA-256 over its
 * size, then over every 4096-byte block that is not all zeros, with its offset. Two images with the
 * same digest read the same everywhere, so a delta applied onto a copy of its base is checked
 * against the snapshot itself, not against what was sent: a base that was not what the sender
 * thought, a change the delta missed, or a hole punched in the wrong place all fail it. A block
 * reads the same whether it is a hole or allocated zeros, so neither side's allocation matters.
 */
public final class ContentDigest {

  private static final int BLOCK = ZeroBlocks.BLOCK;
  private static final int BUFFER = 1 << 20;

  private ContentDigest() {}

  /** The digest of the first {@code size} bytes of {@code image}, read through its data ranges. */
  public static ImageDigest of(ImageExtents image, long size) throws IOException {
    MessageDigest sha256 = sha256();
    ByteBuffer frame = ByteBuffer.allocate(Long.BYTES);
    sha256.update(frame.putLong(size).flip());
    ByteBuffer buffer = ByteBuffer.allocateDirect(BUFFER);
    long dataBytes = 0;
    // Not closed: closing the cursor would close the caller's image.
    RangeCursor ranges = new AllocatedRanges(image, size, 0);
    long done = 0;
    for (ByteRange range = ranges.next(); range != null; range = ranges.next()) {
      // Whole 4096-byte blocks, each once, whatever block the data dir's filesystem has.
      long from = Math.max(done, range.offset() - range.offset() % BLOCK);
      long to = Math.min(size, (range.end() + BLOCK - 1) / BLOCK * BLOCK);
      for (long at = from; at < to; at += BUFFER) {
        int length = (int) Math.min(BUFFER, to - at);
        image.read(buffer.clear().limit(length), at);
        for (int offset = 0; offset < length; offset += BLOCK) {
          if (!ZeroBlocks.isZero(buffer, offset)) {
            ByteBuffer block = buffer.slice(offset, Math.min(BLOCK, length - offset));
            dataBytes += block.remaining();
            sha256.update(frame.clear().putLong(at + offset).flip());
            sha256.update(block);
          }
        }
      }
      done = Math.max(done, to);
    }
    return ImageDigest.newBuilder()
        .setSha256(ByteString.copyFrom(sha256.digest()))
        .setDataBytes(dataBytes)
        .build();
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
