package io.thinvol.driver.host;

import java.time.Duration;
import java.util.List;

/**
 * The single seam through which the driver runs host programs (losetup, mkfs, mount, ...). Tests
 * use the real implementation; the interface exists so a test can observe or fail a call.
 */
public interface CommandRunner {

  /** Runs {@code argv}; a non-zero exit or a timeout throws {@link HostCommandException}. */
  CommandResult run(Duration timeout, List<String> argv);

  /** Runs {@code argv} and returns the result whatever the exit code (timeouts still throw). */
  CommandResult runAllowingFailure(Duration timeout, List<String> argv);
}
