package io.thinvol.driver.core;

import io.thinvol.driver.config.DriverConfig;
import io.thinvol.driver.host.HostTools;
import io.thinvol.driver.store.Catalog;
import io.thinvol.driver.store.DataLayout;
import io.thinvol.driver.store.VolumeRecord;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * How many bytes of new volumes this node can still promise:
 *
 * <pre>(free bytes of the data dir + bytes the volume images occupy) x ratio - sizes promised</pre>
 *
 * <p>The first term is the disk space thinvol's volumes can use. It only changes when something
 * else on that filesystem grows or shrinks (an image filling up moves bytes from "free" to
 * "occupied"), so it is measured at most every few seconds, which keeps CreateVolume free of host
 * commands. Snapshots are not counted as occupied by volumes: they reduce capacity.
 */
final class CapacityGauge {

  private static final Duration REFRESH = Duration.ofSeconds(10);

  private final DriverConfig config;
  private final DataLayout layout;
  private final Catalog catalog;
  private final HostTools host;
  private final AtomicLong promised = new AtomicLong();
  private volatile long baseBytes;
  private volatile long measuredAt;

  CapacityGauge(DriverConfig config, DataLayout layout, Catalog catalog, HostTools host) {
    this.config = config;
    this.layout = layout;
    this.catalog = catalog;
    this.host = host;
    promised.set(catalog.volumes().stream().mapToLong(VolumeRecord::sizeBytes).sum());
    measuredAt = System.nanoTime() - REFRESH.toNanos() - 1;
  }

  Capacity current() {
    if (System.nanoTime() - measuredAt > REFRESH.toNanos()) {
      measure();
    }
    long usable = (long) Math.floor(baseBytes * config.overprovisionRatio());
    long available = Math.max(0, usable - promised.get());
    return new Capacity(available, available);
  }

  void promised(long delta) {
    promised.addAndGet(delta);
  }

  private synchronized void measure() {
    List<Path> images = catalog.volumes().stream().map(v -> layout.volumeImage(v.id())).toList();
    long occupied =
        host.stats().allocatedBytes(images).values().stream().mapToLong(Long::longValue).sum();
    baseBytes = layout.root().toFile().getUsableSpace() + occupied;
    measuredAt = System.nanoTime();
  }
}
