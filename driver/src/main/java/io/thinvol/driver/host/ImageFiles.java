package io.thinvol.driver.host;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Copies of image files and their durability. Everything runs through the runner, fsync included,
 * so a test sees which files were synced and in what order relative to the copies.
 */
public final class ImageFiles {

  private static final Duration SYNC_TIMEOUT = Duration.ofMinutes(10);
  private static final int PROBE_BYTES = 64 * 1024;

  private final CommandRunner runner;

  public ImageFiles(CommandRunner runner) {
    this.runner = runner;
  }

  /** A full copy that keeps holes as holes (minutes for a large, well-filled image). */
  public void copySparse(Path from, Path to, Duration timeout) {
    runner.run(
        timeout,
        List.of("cp", "--sparse=always", "--reflink=never", "--", from.toString(), to.toString()));
  }

  /**
   * A copy that shares every extent with its source (FICLONE): milliseconds whatever the size, and
   * atomic with respect to writes to the source. Fails where the filesystem has no reflinks.
   */
  public void reflink(Path from, Path to, Duration timeout) {
    runner.run(timeout, List.of("cp", "--reflink=always", "--", from.toString(), to.toString()));
  }

  /**
   * Whether files in {@code directory} can be reflinked (xfs with {@code reflink=1}, btrfs): tries
   * it on a small file of its own.
   */
  public boolean supportsReflink(Path directory) {
    Path source = directory.resolve(".reflink-probe");
    Path copy = directory.resolve(".reflink-probe.copy");
    try {
      Files.write(source, new byte[PROBE_BYTES]);
      return runner
          .runAllowingFailure(
              Duration.ofSeconds(30),
              List.of("cp", "--reflink=always", "--", source.toString(), copy.toString()))
          .succeeded();
    } catch (IOException e) {
      throw new HostCommandException("cannot probe reflinks in " + directory, e);
    } finally {
      try {
        Files.deleteIfExists(source);
        Files.deleteIfExists(copy);
      } catch (IOException e) {
        // a leftover probe file is harmless and overwritten next time
      }
    }
  }

  /**
   * fsync of a written image and of the directory that holds it, so neither its data nor its name
   * can be lost once the caller reports it.
   */
  public void syncWithDirectory(Path file) {
    sync(List.of(file, file.getParent()));
  }

  /** fsync of each file, directory or device (a device's flush reaches a loop device's file). */
  public void sync(List<Path> paths) {
    List<String> argv = new ArrayList<>(List.of("sync", "--"));
    paths.forEach(path -> argv.add(path.toString()));
    runner.run(SYNC_TIMEOUT, argv);
  }
}
