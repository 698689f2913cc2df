package io.thinvol.driver.host;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Where the record of an image's 4096-byte blocks' checksums is kept: beside the image, in the
 * volume's directory, so that it goes wherever the directory goes (published, deleted). A later
 * delta onto the volume trusts it only while the image is provably unwritten since
 * (docs/decisions.md), and one proof is that the record is gone before anything could write through
 * a loop device: {@link #forget} runs before every read-write attach.
 */
public final class BlockSumsFile {

  private BlockSumsFile() {}

  public static Path of(Path image) {
    return image.resolveSibling(image.getFileName() + ".sums");
  }

  /**
   * Removes the record of {@code image}, durably: a crash after a write through the loop device
   * must not bring it back, even where the image's new times were not yet on disk.
   */
  public static void forget(Path image) throws IOException {
    if (Files.deleteIfExists(of(image))) {
      try (FileChannel directory = FileChannel.open(image.getParent(), StandardOpenOption.READ)) {
        directory.force(true);
      }
    }
  }
}
