package io.thinvol.driver.host;

import com.sun.jna.LastErrorException;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts the writeback of a file written front to back, a stretch at a time as the writer gets past
 * it ({@code sync_file_range} with {@code SYNC_FILE_RANGE_WRITE}), so that the disk writes a copy
 * out while the copy arrives and the fsync at its end waits only for the last stretch. Unasked, the
 * kernel starts writing a file's pages back only after 30 s or past a share of the node's memory,
 * so a copy of a few GiB left all of it to that fsync. A hint: it waits for nothing and makes
 * nothing durable (the writer's fsync does), and where the call fails it stops asking.
 */
public final class WriteBehind implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(WriteBehind.class);
  private static final long STRETCH = 8L << 20;

  private final Path path;
  private final OpenFile file;
  private long started; // where the stretch not yet handed to writeback starts
  private boolean off;

  private WriteBehind(Path path, OpenFile file) {
    this.path = path;
    this.file = file;
  }

  /** For {@code path}, an existing file the caller writes. */
  public static WriteBehind of(Path path) {
    return new WriteBehind(path, OpenFile.open(path, Libc.O_WRONLY));
  }

  /** The file is written up to {@code end}: starts the writeback of a whole stretch behind it. */
  public void writtenTo(long end) {
    if (off || end - started < STRETCH) {
      return;
    }
    try {
      Libc.INSTANCE.sync_file_range(file.fd(), started, end - started, Libc.SYNC_FILE_RANGE_WRITE);
      started = end;
    } catch (LastErrorException e) {
      off = true;
      log.debug("no early writeback of {}: {}", path, e.toString());
    }
  }

  @Override
  public void close() {
    file.close();
  }
}
