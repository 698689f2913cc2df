package io.thinvol.driver;

import io.thinvol.driver.host.CommandRunner;
import io.thinvol.driver.host.LoopDevice;
import io.thinvol.driver.host.LoopDevices;
import io.thinvol.driver.host.ProcessCommandRunner;
import io.thinvol.driver.store.Catalog;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A data dir on a small xfs filesystem with reflinks ({@code mkfs.xfs -m reflink=1}), in a sparse
 * file on a loop device. Closing it releases what the driver left attached there (reported by
 * {@link #close()}), unmounts it and removes everything.
 */
public final class XfsDataDir implements AutoCloseable {

  private static final Duration TIMEOUT = Duration.ofMinutes(1);
  private static final long SIZE = 1L << 30;

  private final CommandRunner runner = new ProcessCommandRunner();
  private final Path base;
  private final Path mountPoint;
  private final List<String> leaked = new ArrayList<>();

  private XfsDataDir(Path base) {
    this.base = base;
    this.mountPoint = base.resolve("data");
  }

  public static XfsDataDir create() throws IOException {
    return create(SIZE);
  }

  /** One of {@code size} bytes (sparse: what is written takes space). */
  public static XfsDataDir create(long size) throws IOException {
    XfsDataDir dir = new XfsDataDir(Files.createTempDirectory("thinvol-xfs-"));
    Path image = dir.base.resolve("xfs.img");
    try (RandomAccessFile file = new RandomAccessFile(image.toFile(), "rw")) {
      file.setLength(size);
    }
    dir.runner.run(TIMEOUT, List.of("mkfs.xfs", "-q", "-m", "reflink=1", image.toString()));
    Files.createDirectories(dir.mountPoint);
    dir.runner.run(
        TIMEOUT, List.of("mount", "-o", "loop", image.toString(), dir.mountPoint.toString()));
    return dir;
  }

  public Path path() {
    return mountPoint;
  }

  /** What the driver left attached to images in this data dir (released by {@link #close()}). */
  public List<String> leaked() {
    return List.copyOf(leaked);
  }

  @Override
  public void close() throws IOException {
    LoopDevices loops = new LoopDevices(runner);
    for (LoopDevice device : loops.all()) {
      if (device.backingName().startsWith(mountPoint + "/")) {
        leaked.add("loop device of " + device.backingName());
        loops.detach(device);
      }
    }
    runner.run(TIMEOUT, List.of("umount", mountPoint.toString())); // -o loop: detached with it
    Catalog.removeTree(base);
  }
}
