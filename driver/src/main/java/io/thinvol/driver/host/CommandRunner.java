package io.thinvol.driver.host;

import java.time.Duration;
import java.util.List;

/**
 * The single seam through which the driver does host work: programs it runs (mkfs, fsck, the resize
 * tools, ...) and system calls it makes itself ({@link HostCall}: loop devices, mounts, trims,
 * freezes, syncs). Tests use the real implementation; the interface exists so a test can observe or
 * fail a call.
 */
public interface CommandRunner {

  /** Runs {@code argv}; a non-zero exit or a timeout throws {@link HostCommandException}. */
  CommandResult run(Duration timeout, List<String> argv);

  /** Runs {@code argv} and returns the result whatever the exit code (timeouts still throw). */
  CommandResult runAllowingFailure(Duration timeout, List<String> argv);

  /**
   * Makes the system calls of {@code call}, waiting at most {@code timeout}; a failure throws
   * {@link HostCommandException} with the errno's meaning, a timeout one that {@link
   * HostCommandException#isTimeout() is a timeout}.
   */
  default <T> T call(Duration timeout, HostCall<T> call) {
    return SystemCalls.call(timeout, call);
  }
}
