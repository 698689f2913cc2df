package io.thinvol.driver.core;

import io.thinvol.driver.host.HostTools;
import io.thinvol.driver.store.AtomicFiles;
import io.thinvol.driver.store.DataLayout;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Filesystem freezes no crash can leave behind. A marker under the data dir names the frozen mount
 * from before FIFREEZE until after the thaw (written atomically and fsynced); the next start of the
 * driver thaws whatever a marker names. Without it, a driver killed mid-copy (a rollout, an OOM
 * kill) would leave the application's filesystem frozen and every write of its pod hanging.
 */
final class Freezes {

  private static final Logger log = LoggerFactory.getLogger(Freezes.class);

  private final DataLayout layout;
  private final HostTools host;

  Freezes(DataLayout layout, HostTools host) {
    this.layout = layout;
    this.host = host;
  }

  /** A frozen filesystem; closing it thaws it and removes its marker. */
  interface Frozen extends AutoCloseable {
    @Override
    void close();
  }

  /** Freezes the filesystem mounted at {@code mountPoint}, waiting at most {@code timeout}. */
  Frozen freeze(String volumeId, Path mountPoint, Duration timeout) {
    Path marker = layout.frozen().resolve(volumeId);
    try {
      Files.createDirectories(marker.getParent());
      AtomicFiles.write(marker, mountPoint.toString().getBytes(StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw CsiException.internal(
          "cannot record the freeze of " + mountPoint + " in " + marker + ": " + e.getMessage(), e);
    }
    try {
      host.filesystems().freeze(mountPoint, timeout);
    } catch (RuntimeException e) {
      thaw(marker, mountPoint); // a freeze that timed out may still have taken effect
      throw e;
    }
    long frozenAt = System.nanoTime();
    return () -> {
      host.filesystems().thaw(mountPoint);
      log.info(
          "volume {} was frozen at {} for {} ms",
          volumeId,
          mountPoint,
          (System.nanoTime() - frozenAt) / 1_000_000);
      removeMarker(marker);
    };
  }

  /**
   * Freezes the filesystems of several volumes (volume id to mount point), one after the other,
   * each waiting at most what {@code timeout} says at that moment; closing the result thaws them
   * all. Each has its own marker, so a crash leaves none of them frozen. If one cannot be frozen,
   * those already frozen are thawed before the failure is thrown.
   */
  Frozen freezeAll(Map<String, Path> mounts, Supplier<Duration> timeout) {
    List<Frozen> frozen = new ArrayList<>();
    try {
      mounts.forEach(
          (volumeId, mountPoint) -> frozen.add(freeze(volumeId, mountPoint, timeout.get())));
    } catch (RuntimeException e) {
      thawAll(frozen);
      throw e;
    }
    long frozenAt = System.nanoTime();
    return () -> {
      thawAll(frozen);
      if (frozen.size() > 1) {
        log.info(
            "{} filesystems were frozen together for {} ms",
            frozen.size(),
            (System.nanoTime() - frozenAt) / 1_000_000);
      }
    };
  }

  /** Thaws in reverse order of freezing; every thaw is tried, the first failure is thrown. */
  private static void thawAll(List<Frozen> frozen) {
    RuntimeException failure = null;
    for (int i = frozen.size() - 1; i >= 0; i--) {
      try {
        frozen.get(i).close();
      } catch (RuntimeException e) {
        if (failure == null) {
          failure = e;
        } else {
          failure.addSuppressed(e);
        }
      }
    }
    if (failure != null) {
      throw failure;
    }
  }

  /** Thaws every filesystem a marker names: a previous run of the driver stopped while it froze. */
  void thawLeftovers() {
    Path dir = layout.frozen();
    if (!Files.isDirectory(dir)) {
      return;
    }
    try (DirectoryStream<Path> markers = Files.newDirectoryStream(dir)) {
      for (Path marker : markers) {
        if (marker.getFileName().toString().startsWith(".")) {
          Files.delete(marker); // a marker whose write never finished: no freeze followed it
          continue;
        }
        Path mountPoint = Path.of(Files.readString(marker, StandardCharsets.UTF_8).strip());
        log.warn(
            "the driver stopped while volume {} was frozen at {}; thawing it",
            marker.getFileName(),
            mountPoint);
        try {
          thaw(marker, mountPoint);
        } catch (RuntimeException e) {
          // The marker stays for the next start; the other volumes must not stay offline.
          log.error("cannot thaw {}: {}", mountPoint, e.getMessage());
        }
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot read the freeze markers in " + dir, e);
    }
  }

  private void thaw(Path marker, Path mountPoint) {
    boolean mounted = host.mountTable().at(mountPoint).isPresent();
    if (mounted && !host.filesystems().thaw(mountPoint)) {
      log.info("{} was not frozen (any more)", mountPoint);
    }
    removeMarker(marker);
  }

  private static void removeMarker(Path marker) {
    try {
      Files.deleteIfExists(marker);
      AtomicFiles.syncDirectory(marker.getParent());
    } catch (IOException e) {
      // The filesystem is thawed; a stale marker only means one more harmless thaw at next start.
      log.warn("cannot remove the freeze marker {}: {}", marker, e.getMessage());
    }
  }
}
