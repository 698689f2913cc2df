package io.thinvol.driver.host;

import com.sun.jna.LastErrorException;
import com.sun.jna.NativeLong;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Copies of image files and their durability. Everything runs through the runner, fsync included,
 * so a test sees which files were synced and in what order relative to the copies. A reflink and an
 * fsync are system calls; a full sparse copy runs {@code cp}.
 */
public final class ImageFiles {

  private static final Duration SYNC_TIMEOUT = Duration.ofMinutes(10);
  private static final int PROBE_BYTES = 64 * 1024;
  private static final NativeLong FICLONE = new NativeLong(0x40049409L);
  // what a filesystem without reflinks answers to FICLONE
  private static final Set<Integer> CANNOT_CLONE =
      Set.of(Errno.EOPNOTSUPP, Errno.EXDEV, Errno.EINVAL, Errno.ENOTTY);

  private static final Logger log = LoggerFactory.getLogger(ImageFiles.class);

  /** The threads that write images back while their writers go on (also {@link WriteBehind}). */
  static final ExecutorService WRITEBACK =
      Executors.newCachedThreadPool(
          runnable -> {
            Thread thread = new Thread(runnable, "image-writeback");
            thread.setDaemon(true);
            return thread;
          });

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
    runner.call(timeout, cloneCall(from, to));
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
      Files.deleteIfExists(copy);
      runner.call(Duration.ofSeconds(30), cloneCall(source, copy));
      return true;
    } catch (HostCommandException e) {
      if (e.isTimeout() || !CANNOT_CLONE.contains(e.errno())) {
        throw e;
      }
      return false;
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

  /** A new file {@code to} sharing the extents of {@code from}; none is left when that fails. */
  private static HostCall<Void> cloneCall(Path from, Path to) {
    return HostCall.action(
            List.of("FICLONE", from.toString(), to.toString()),
            () -> {
              try (OpenFile source = OpenFile.open(from, Libc.O_RDONLY);
                  OpenFile target =
                      OpenFile.open(to, Libc.O_WRONLY | Libc.O_CREAT | Libc.O_EXCL, 0644)) {
                try {
                  Libc.INSTANCE.ioctl(target.fd(), FICLONE, source.fd());
                } catch (LastErrorException e) {
                  Files.deleteIfExists(to);
                  throw e;
                }
              }
            })
        .meaning(Errno.EXDEV, "is on another filesystem than " + from)
        .meaning(Errno.EOPNOTSUPP, "is on a filesystem without reflinks")
        .meaning(Errno.EEXIST, "exists already");
  }

  /**
   * fsync of a written image and of the directory that holds it, so neither its data nor its name
   * can be lost once the caller reports it.
   */
  public void syncWithDirectory(Path file) {
    sync(List.of(file, file.getParent()));
  }

  /**
   * Starts the fsync of {@code file} on a thread of its own, so that the disk writes its pages out
   * while the caller goes on with it (a delta's base, copied in full, while the changes arrive):
   * the caller's own fsync of it later waits only for what is left. Closing the result waits for
   * it; a failure of it is for the caller's fsync to report.
   */
  public Writeback writeBack(Path file) {
    return new Writeback(
        CompletableFuture.runAsync(() -> sync(List.of(file)), WRITEBACK)
            .exceptionally(
                failed -> {
                  log.debug("writing {} back: {}", file, failed.toString());
                  return null;
                }));
  }

  /** An fsync under way ({@link #writeBack}). */
  public static final class Writeback implements AutoCloseable {
    private final CompletableFuture<Void> syncing;

    private Writeback(CompletableFuture<Void> syncing) {
      this.syncing = syncing;
    }

    @Override
    public void close() {
      syncing.join();
    }
  }

  /** fsync of each file, directory or device (a device's flush reaches a loop device's file). */
  public void sync(List<Path> paths) {
    List<String> shown = new ArrayList<>(List.of("fsync"));
    paths.forEach(path -> shown.add(path.toString()));
    runner.call(
        SYNC_TIMEOUT,
        HostCall.action(
            shown,
            () -> {
              for (Path path : paths) {
                try (OpenFile file = OpenFile.open(path, Libc.O_RDONLY)) {
                  Libc.INSTANCE.fsync(file.fd());
                } catch (LastErrorException e) {
                  throw Errno.on(path, e);
                }
              }
            }));
  }
}
