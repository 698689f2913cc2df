package io.thinvol.testing.real;

import java.time.Duration;

/** A fixture's wait between two looks at the cluster; an interrupt ends it as a failure. */
final class Pause {

  private Pause() {}

  /**
   * @param during what the caller waits for, as the failure names it ("waiting for the audit log")
   */
  static void of(Duration duration, String during) {
    try {
      Thread.sleep(duration.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted " + during, e);
    }
  }
}
