package io.thinvol.driver.peer.copy;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * What shows that an image was not written since its block checksums were recorded: its identity
 * and size, its modification time set to a fixed instant long past, and its change time. Every
 * write, hole punched, allocation or truncation through the kernel sets both times to the present,
 * which the fixed instant never is; the change time cannot be set back by any call, so even a file
 * whose modification time was set to the same instant again no longer matches.
 */
record ImageSeal(long device, long inode, long size, long modifiedNanos, long changedNanos) {

  /** 2000-01-01T00:00:00Z: no image is written then. */
  static final FileTime SEALED = FileTime.from(946_684_800L, TimeUnit.SECONDS);

  static final int BYTES = 5 * Long.BYTES;

  /** Sets {@code image}'s modification time to {@link #SEALED}, durably, and reads its seal. */
  static ImageSeal take(Path image) throws IOException {
    Files.setLastModifiedTime(image, SEALED);
    try (FileChannel channel = FileChannel.open(image, StandardOpenOption.WRITE)) {
      channel.force(true); // the times on disk before the record that relies on them
    }
    return of(image);
  }

  /** The seal {@code image} has now, whether it is sealed or not. */
  static ImageSeal of(Path image) throws IOException {
    Map<String, Object> stat =
        Files.readAttributes(
            image, "unix:dev,ino,size,lastModifiedTime,ctime", LinkOption.NOFOLLOW_LINKS);
    return new ImageSeal(
        (Long) stat.get("dev"),
        (Long) stat.get("ino"),
        (Long) stat.get("size"),
        ((FileTime) stat.get("lastModifiedTime")).to(TimeUnit.NANOSECONDS),
        ((FileTime) stat.get("ctime")).to(TimeUnit.NANOSECONDS));
  }

  /** Whether this is a seal {@link #take} made: written since, the modification time moved. */
  boolean sealed() {
    return modifiedNanos == SEALED.to(TimeUnit.NANOSECONDS);
  }
}
