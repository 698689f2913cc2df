package io.thinvol.driver.host;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The end of a detach: LOOP_CLR_FD returns at once, but while anyone else has the device open the
 * kernel only marks it for autoclear and unbinds it when the last opener closes it.
 */
final class DetachWait {

  private static final Logger log = LoggerFactory.getLogger(DetachWait.class);
  private static final Path SYS_BLOCK = Path.of("/sys/block");
  private static final long MAX_PAUSE_MILLIS = 100;

  private DetachWait() {}

  /**
   * Waits, polling sysfs with a growing pause (never opening the device: an opener delays the
   * detach), until the device no longer backs its image; fails after {@code bound}.
   */
  static void await(LoopDevice device, Duration bound) {
    long start = System.nanoTime();
    long deadline = start + bound.toNanos();
    long pauseMillis = 2;
    while (backs(device)) {
      if (System.nanoTime() - deadline >= 0) {
        List<String> openers = LoopOpeners.of(device);
        throw new DetachPendingException(
            String.format(
                "%s is still attached to %s %d s after LOOP_CLR_FD: %s keep%s it open, and the"
                    + " kernel detaches it when the last of them closes it; retry then",
                device.path(),
                device.backingName(),
                bound.toSeconds(),
                openers.isEmpty()
                    ? "processes or mounts outside the driver's view (another PID or mount"
                        + " namespace)"
                    : String.join(", ", openers),
                openers.size() == 1 ? "s" : ""));
      }
      sleep(pauseMillis);
      pauseMillis = Math.min(pauseMillis * 2, MAX_PAUSE_MILLIS);
    }
    if (pauseMillis > 2) {
      log.debug(
          "{} detached {} ms after LOOP_CLR_FD: it was held open meanwhile",
          device.path(),
          (System.nanoTime() - start) / 1_000_000);
    }
  }

  /** Whether the device is still bound to the file it was found with. */
  private static boolean backs(LoopDevice device) {
    Path backing = SYS_BLOCK.resolve(device.name()).resolve("loop/backing_file");
    try {
      return Files.readString(backing).strip().equals(device.backingName());
    } catch (NoSuchFileException e) {
      return false; // the kernel removes loop/ from sysfs as it detaches
    } catch (IOException e) {
      // ENODEV: sysfs is removing the attributes as the kernel detaches; poll until loop/ is gone
      return Files.exists(backing.getParent());
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new HostCommandException("interrupted while waiting for a loop device to detach", e);
    }
  }
}
