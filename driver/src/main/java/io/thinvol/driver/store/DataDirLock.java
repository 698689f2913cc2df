package io.thinvol.driver.store;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * One driver per data dir: an OS lock on {@code <data-dir>/.lock}, held for the life of the process
 * and released by the kernel even when it is killed. A second driver (an overlapping rollout, a
 * stray manual run) is refused instead of racing the first over the same volumes.
 */
public final class DataDirLock implements AutoCloseable {

  private final FileChannel channel;
  private final FileLock lock;

  private DataDirLock(FileChannel channel, FileLock lock) {
    this.channel = channel;
    this.lock = lock;
  }

  public static DataDirLock acquire(Path dataDir) throws IOException {
    Files.createDirectories(dataDir);
    FileChannel channel =
        FileChannel.open(
            dataDir.resolve(".lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
    FileLock lock;
    try {
      lock = channel.tryLock();
    } catch (OverlappingFileLockException e) {
      lock = null; // held by this very process
    } catch (IOException | RuntimeException e) {
      channel.close();
      throw e;
    }
    if (lock == null) {
      channel.close();
      throw new IllegalStateException(
          "another thinvol driver is using the data dir "
              + dataDir
              + "; only one may run per data dir");
    }
    return new DataDirLock(channel, lock);
  }

  @Override
  public void close() throws IOException {
    lock.release();
    channel.close();
  }
}
