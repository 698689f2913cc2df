package io.thinvol.driver;

import io.thinvol.driver.host.HostCleanup;
import io.thinvol.driver.host.ProcessCommandRunner;
import io.thinvol.driver.store.Catalog;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * A small real filesystem (ext4 on a loop device) mounted in a temporary directory, so that "free
 * bytes" of a data dir are few and real. Closing it unmounts it and detaches its loop device.
 */
public final class SmallFilesystem implements AutoCloseable {

  private static final Duration TIMEOUT = Duration.ofSeconds(60);

  private final Path root;
  private final Path mountPoint;
  private final ProcessCommandRunner runner = new ProcessCommandRunner();

  public SmallFilesystem(long bytes) throws IOException {
    root = Files.createTempDirectory("thinvol-small-fs-");
    mountPoint = root.resolve("mnt");
    Path image = root.resolve("fs.img");
    try (RandomAccessFile file = new RandomAccessFile(image.toFile(), "rw")) {
      file.setLength(bytes);
    }
    Files.createDirectories(mountPoint);
    try {
      runner.run(TIMEOUT, List.of("mkfs.ext4", "-q", "-F", "-m", "0", image.toString()));
      runner.run(TIMEOUT, List.of("mount", "-o", "loop", image.toString(), mountPoint.toString()));
    } catch (RuntimeException e) {
      close();
      throw e;
    }
  }

  public Path mountPoint() {
    return mountPoint;
  }

  /** Fills the free space with a file; returns the bytes written. */
  public long fill(Path file) throws IOException {
    byte[] chunk = new byte[1 << 20];
    long written = 0;
    try (var out = Files.newOutputStream(file)) {
      while (true) {
        out.write(chunk);
        written += chunk.length;
      }
    } catch (IOException e) {
      if (!String.valueOf(e.getMessage()).contains("No space left")) {
        throw e;
      }
    }
    return written;
  }

  @Override
  public void close() throws IOException {
    List<String> held = HostCleanup.release(root);
    Catalog.removeTree(root);
    if (held.stream().anyMatch(h -> h.contains("("))) {
      throw new IOException("cannot release the small filesystem: " + held);
    }
  }
}
