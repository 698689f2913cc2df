package io.thinvol.driver.host;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes the error settings of a mounted xfs ({@code /sys/fs/xfs/<device>/error}). A privileged
 * driver container in a pod's network namespace can still find {@code /sys} read-only: a network
 * namespace has one sysfs superblock, and the pod's sandbox and unprivileged sidecars mount it
 * read-only before the driver (containerd 1.6 does so). xfs's entries do not depend on the network
 * namespace, so the settings are then written through a sysfs that a short-lived child mounts in
 * network and mount namespaces of its own ({@code unshare}), which is writable; the mount vanishes
 * with the child.
 */
final class XfsErrorSettings {

  private static final Logger log = LoggerFactory.getLogger(XfsErrorSettings.class);
  private static final Duration TIMEOUT = Duration.ofSeconds(30);
  private static final String READ_ONLY = "Read-only file system";
  // $1 mount point, $2 device, $3 max_retries, $4 retry_timeout_seconds
  private static final String THROUGH_OWN_SYSFS =
      "set -e; mount -t sysfs sysfs \"$1\"; errors=\"$1/fs/xfs/$2/error\";"
          + " for e in ENOSPC EIO; do printf %s \"$3\" > \"$errors/metadata/$e/max_retries\";"
          + " printf %s \"$4\" > \"$errors/metadata/$e/retry_timeout_seconds\"; done;"
          + " printf 1 > \"$errors/fail_at_unmount\"";

  private final CommandRunner runner;
  private final Path sysFsXfs;

  XfsErrorSettings(CommandRunner runner, Path sysFsXfs) {
    this.runner = runner;
    this.sysFsXfs = sysFsXfs;
  }

  /** Retries of failed metadata writeback, ENOSPC and EIO alike; give up at unmount. */
  void bound(LoopDevice device, String maxRetries, String retryTimeoutSeconds) {
    Path errors = sysFsXfs.resolve(device.name()).resolve("error");
    try {
      for (String error : List.of("ENOSPC", "EIO")) {
        Path settings = errors.resolve("metadata").resolve(error);
        Files.writeString(settings.resolve("max_retries"), maxRetries);
        Files.writeString(settings.resolve("retry_timeout_seconds"), retryTimeoutSeconds);
      }
      Files.writeString(errors.resolve("fail_at_unmount"), "1");
    } catch (FileSystemException e) {
      if (!READ_ONLY.equals(e.getReason())) {
        throw failed(device, errors, e);
      }
      log.debug("{} is read-only here; writing through a sysfs of its own", sysFsXfs);
      throughOwnSysfs(device, maxRetries, retryTimeoutSeconds);
    } catch (IOException e) {
      throw failed(device, errors, e);
    }
  }

  private void throughOwnSysfs(LoopDevice device, String maxRetries, String retryTimeoutSeconds) {
    Path mountPoint = null;
    try {
      mountPoint = Files.createTempDirectory("thinvol-sysfs-");
      runner.run(
          TIMEOUT,
          List.of(
              "unshare",
              "--net",
              "--mount",
              "--",
              "sh",
              "-c",
              THROUGH_OWN_SYSFS,
              "sh",
              mountPoint.toString(),
              device.name(),
              maxRetries,
              retryTimeoutSeconds));
    } catch (IOException e) {
      throw failed(device, sysFsXfs, e);
    } finally {
      if (mountPoint != null) {
        try {
          Files.deleteIfExists(mountPoint);
        } catch (IOException e) {
          log.warn("cannot remove the empty mount point {}: {}", mountPoint, e.toString());
        }
      }
    }
  }

  private static UncheckedIOException failed(LoopDevice device, Path where, IOException e) {
    return new UncheckedIOException(
        "cannot bound the xfs error retries of " + device.path() + " in " + where, e);
  }
}
