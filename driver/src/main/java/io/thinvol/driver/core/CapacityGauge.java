package io.thinvol.driver.core;

import io.thinvol.driver.config.DriverConfig;
import io.thinvol.driver.host.HostTools;
import io.thinvol.driver.store.Catalog;
import io.thinvol.driver.store.DataLayout;
import io.thinvol.driver.store.SnapshotRecord;
import io.thinvol.driver.store.VolumeRecord;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * How many bytes of new volumes this node can still promise:
 *
 * <pre>(disk - snapshot bytes) x ratio - volume sizes</pre>
 *
 * <p>{@code disk} is the space thinvol's images can use: the data dir's free bytes plus the bytes
 * every image (volume or snapshot) occupies. It only changes when something else on that filesystem
 * grows or shrinks, so it is measured at most every few seconds, which keeps CreateVolume free of
 * host commands. Volumes are promised their logical size; a snapshot is never written after it is
 * taken, so it takes exactly the bytes its copy allocated, and those real bytes are not
 * overprovisioned.
 *
 * <p>Checks and reservations happen in one step under one lock: a {@link Reservation} is taken
 * before an image is written and counts at once (GetCapacity sees it), and is given back when the
 * write fails. The lock is never held across a host command.
 */
final class CapacityGauge {

  private static final Duration REFRESH = Duration.ofSeconds(10);

  private final DriverConfig config;
  private final DataLayout layout;
  private final Catalog catalog;
  private final HostTools host;
  private final Object measuring = new Object();
  private final Map<String, Long> snapshotSizes = new HashMap<>();
  private long volumeBytes;
  private int volumeCount;
  private long snapshotBytes;
  private volatile long diskBytes;
  private volatile long imageBytes;
  private volatile long measuredAt;

  CapacityGauge(DriverConfig config, DataLayout layout, Catalog catalog, HostTools host) {
    this.config = config;
    this.layout = layout;
    this.catalog = catalog;
    this.host = host;
    for (VolumeRecord volume : catalog.volumes()) {
      volumeBytes += volume.sizeBytes();
      volumeCount++;
    }
    List<SnapshotRecord> snapshots = catalog.snapshots();
    Map<Path, Long> allocated =
        host.stats()
            .allocatedBytes(snapshots.stream().map(s -> layout.snapshotImage(s.id())).toList());
    for (SnapshotRecord snapshot : snapshots) {
      long bytes = allocated.getOrDefault(layout.snapshotImage(snapshot.id()), 0L);
      snapshotSizes.put(snapshot.id(), bytes);
      snapshotBytes += bytes;
    }
    measuredAt = System.nanoTime() - REFRESH.toNanos() - 1;
    measure();
  }

  Capacity current() {
    refreshIfStale();
    synchronized (this) {
      long available = available();
      return new Capacity(available, available);
    }
  }

  /** The sizes of the volumes, reserved ones included: what this node promised. */
  synchronized long promisedBytes() {
    return volumeBytes;
  }

  /**
   * The bytes every image (volume or snapshot) occupies on the disk, as last measured: at most a
   * few seconds old, so a scrape never stats a thousand images more often than the gauge does.
   */
  long imageBytes() {
    refreshIfStale();
    return imageBytes;
  }

  /**
   * Reserves a new volume of {@code bytes}: refused when the node holds {@code --max-volumes}
   * volumes (reserved ones included) or cannot promise the bytes.
   */
  Reservation reserveVolume(long bytes) {
    refreshIfStale();
    synchronized (this) {
      if (volumeCount >= config.maxVolumes()) {
        throw CsiException.resourceExhausted(
            "node %s already holds %d volumes, its maximum (--max-volumes)",
            config.nodeId(), config.maxVolumes());
      }
      requireAvailable(bytes, "a volume of " + bytes + " bytes");
      volumeBytes += bytes;
      volumeCount++;
      return new Reservation(this, bytes, 1, 0);
    }
  }

  /** Reserves the growth of an existing volume; refused with OUT_OF_RANGE when it cannot be. */
  Reservation reserveGrowth(String volumeId, long bytes) {
    refreshIfStale();
    synchronized (this) {
      long available = available();
      if (bytes > available) {
        throw CsiException.outOfRange(
            "growing volume %s by %d bytes exceeds what node %s can still promise (%d bytes)",
            volumeId, bytes, config.nodeId(), available);
      }
      volumeBytes += bytes;
      return new Reservation(this, bytes, 0, 0);
    }
  }

  /**
   * Reserves room for a snapshot that will allocate at most {@code bytes}; {@link
   * Reservation#keepSnapshot} records what the copy really allocated.
   */
  Reservation reserveSnapshot(long bytes) {
    refreshIfStale();
    synchronized (this) {
      requireAvailable(bytes, "a snapshot occupying " + bytes + " bytes");
      snapshotBytes += bytes;
      return new Reservation(this, 0, 0, bytes);
    }
  }

  /** A volume that came to be without a reservation: finished at start ({@link InPlaceDeltas}). */
  synchronized void volumeAdded(VolumeRecord volume) {
    volumeBytes += volume.sizeBytes();
    volumeCount++;
  }

  synchronized void volumeDeleted(VolumeRecord volume) {
    volumeBytes -= volume.sizeBytes();
    volumeCount--;
  }

  synchronized void snapshotDeleted(String snapshotId) {
    Long bytes = snapshotSizes.remove(snapshotId);
    if (bytes != null) {
      snapshotBytes -= bytes;
    }
  }

  private void requireAvailable(long bytes, String what) {
    long available = available();
    if (bytes > available) {
      throw CsiException.resourceExhausted(
          "node %s can promise %d more bytes, %s was asked for (data dir %s, overprovision ratio"
              + " %.2f)",
          config.nodeId(), available, what, layout.root(), config.overprovisionRatio());
    }
  }

  // Snapshot bytes are real bytes: they come off the disk before the ratio applies.
  private long available() {
    long usable = (long) Math.floor((diskBytes - snapshotBytes) * config.overprovisionRatio());
    return Math.max(0, usable - volumeBytes);
  }

  private synchronized void release(long bytes, int volumes, long snapshot) {
    volumeBytes -= bytes;
    volumeCount -= volumes;
    snapshotBytes -= snapshot;
  }

  private synchronized void keepSnapshot(String snapshotId, long reserved, long allocated) {
    snapshotBytes += allocated - reserved;
    snapshotSizes.put(snapshotId, allocated);
  }

  private boolean stale() {
    return System.nanoTime() - measuredAt > REFRESH.toNanos();
  }

  private void refreshIfStale() {
    if (stale()) {
      measure();
    }
  }

  private void measure() {
    synchronized (measuring) {
      if (!stale()) {
        return; // another caller measured while this one waited
      }
      List<Path> images = new ArrayList<>();
      Stream.concat(
              catalog.volumes().stream().map(v -> layout.volumeImage(v.id())),
              catalog.snapshots().stream().map(s -> layout.snapshotImage(s.id())))
          .forEach(images::add);
      long occupied =
          host.stats().allocatedBytes(images).values().stream().mapToLong(Long::longValue).sum();
      imageBytes = occupied;
      diskBytes = layout.root().toFile().getUsableSpace() + occupied;
      measuredAt = System.nanoTime();
    }
  }

  /**
   * Capacity taken for an image being written. Closing it gives the capacity back unless the image
   * was kept; use it in try-with-resources around the write.
   */
  static final class Reservation implements AutoCloseable {
    private final CapacityGauge gauge;
    private final long volumeBytes;
    private final int volumes;
    private final long snapshotBytes;
    private boolean kept;

    private Reservation(CapacityGauge gauge, long volumeBytes, int volumes, long snapshotBytes) {
      this.gauge = gauge;
      this.volumeBytes = volumeBytes;
      this.volumes = volumes;
      this.snapshotBytes = snapshotBytes;
    }

    /** The image exists: what was reserved is now promised. */
    void keep() {
      kept = true;
    }

    /** The snapshot exists and occupies {@code allocated} bytes, which replace the reservation. */
    void keepSnapshot(String snapshotId, long allocated) {
      gauge.keepSnapshot(snapshotId, snapshotBytes, allocated);
      kept = true;
    }

    @Override
    public void close() {
      if (!kept) {
        gauge.release(volumeBytes, volumes, snapshotBytes);
      }
    }
  }
}
