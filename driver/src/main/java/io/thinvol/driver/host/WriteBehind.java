package io.thinvol.driver.host;

import com.sun.jna.LastErrorException;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.IntConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes a file written front to back durable behind its writer, so that the writer's fsync at the
 * end waits only for the last stretch:
 *
 * <ul>
 *   <li>each {@value #WRITEBACK_STRETCH}-byte stretch the writer gets past is handed to the disk's
 *       writeback ({@code sync_file_range} with {@code SYNC_FILE_RANGE_WRITE}). Unasked, the kernel
 *       starts writing a file's pages back only after 30 s or past a share of the node's memory, so
 *       a copy of a few GiB left all of it to that fsync;
 *   <li>each {@value #SYNC_STRETCH} bytes, an {@code fdatasync} on a thread of its own, one at a
 *       time. Pages written back are not yet durable: the filesystem's journal commits their blocks
 *       and the disk flushes its cache at a sync. On the benchmark's host that took 0.5 s for 512
 *       MiB written back, all of it at the writer's fsync, which made a third of a cross-node
 *       copy's time; synced behind the writer, it overlaps the copy and the fsync at the end takes
 *       milliseconds (docs/benchmarks.md).
 * </ul>
 *
 * Hints both: they make nothing durable the writer relies on (its own fsync does), and where a call
 * fails it stops asking. An error of the writeback is not lost to the writer: the kernel reports it
 * to each open file description, and the syncs here use their own.
 */
public final class WriteBehind implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(WriteBehind.class);
  private static final long WRITEBACK_STRETCH = 8L << 20;
  private static final long SYNC_STRETCH = 64L << 20;

  private final Path path;
  private final OpenFile file;
  private final IntConsumer syncData;
  private final Executor syncs;
  private long started; // where the stretch not yet handed to writeback starts
  private long synced; // where the writer was when the last sync began
  private CompletableFuture<Void> syncing = CompletableFuture.completedFuture(null);
  private volatile boolean off;

  WriteBehind(Path path, OpenFile file, IntConsumer syncData, Executor syncs) {
    this.path = path;
    this.file = file;
    this.syncData = syncData;
    this.syncs = syncs;
  }

  /** For {@code path}, an existing file the caller writes. */
  public static WriteBehind of(Path path) {
    return new WriteBehind(
        path,
        OpenFile.open(path, Libc.O_WRONLY),
        fd -> Libc.INSTANCE.fdatasync(fd),
        ImageFiles.WRITEBACK);
  }

  /** The file is written up to {@code end}: starts what the stretches behind it are due. */
  public void writtenTo(long end) {
    if (off) {
      return;
    }
    if (end - started >= WRITEBACK_STRETCH) {
      try {
        Libc.INSTANCE.sync_file_range(
            file.fd(), started, end - started, Libc.SYNC_FILE_RANGE_WRITE);
        started = end;
      } catch (LastErrorException e) {
        stop("no early writeback", e);
        return;
      }
    }
    if (end - synced >= SYNC_STRETCH && syncing.isDone()) {
      synced = end;
      syncing = CompletableFuture.runAsync(this::sync, syncs);
    }
  }

  private void sync() {
    try {
      syncData.accept(file.fd());
    } catch (RuntimeException e) {
      stop("no sync behind the writer", e);
    }
  }

  private void stop(String what, RuntimeException e) {
    off = true;
    log.debug("{} of {}: {}", what, path, e.toString());
  }

  /** Whether a call failed, and it stopped asking. */
  boolean stopped() {
    return off;
  }

  /** Waits for a sync under way (the writer's fsync, just before, waited on the same disk). */
  @Override
  public void close() {
    try {
      syncing.join();
    } finally {
      file.close();
    }
  }
}
