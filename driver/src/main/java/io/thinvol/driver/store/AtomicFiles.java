package io.thinvol.driver.store;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/** Crash-safe replacement of small files: write a temp file, fsync it, rename, fsync the dir. */
public final class AtomicFiles {

  private AtomicFiles() {}

  public static void write(Path target, byte[] content) throws IOException {
    Path temp = target.resolveSibling("." + target.getFileName() + ".tmp");
    try (FileChannel channel =
        FileChannel.open(
            temp,
            StandardOpenOption.CREATE,
            StandardOpenOption.TRUNCATE_EXISTING,
            StandardOpenOption.WRITE)) {
      channel.write(java.nio.ByteBuffer.wrap(content));
      channel.force(true);
    }
    Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    syncDirectory(target.getParent());
  }

  /** Makes a rename or create inside {@code directory} durable. */
  public static void syncDirectory(Path directory) throws IOException {
    try (FileChannel channel = FileChannel.open(directory, StandardOpenOption.READ)) {
      channel.force(true);
    }
  }
}
