package io.thinvol.addons.cron;

import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * A stable offset for each scheduled object, so a thousand objects on {@code @weekly} do not all
 * fire in the same second: FNV-1a of the UID, modulo the smaller of the window and the schedule's
 * period (so a run never slides into the next one).
 */
public final class Stagger {

  private Stagger() {}

  public static Duration offset(String uid, Duration interval, Duration window) {
    long spread = Math.min(interval.toSeconds(), window.toSeconds());
    if (spread <= 0 || uid == null) {
      return Duration.ZERO;
    }
    return Duration.ofSeconds(Integer.toUnsignedLong(fnv1a(uid)) % spread);
  }

  static int fnv1a(String text) {
    int hash = 0x811c9dc5;
    for (byte b : text.getBytes(StandardCharsets.UTF_8)) {
      hash ^= b & 0xff;
      hash *= 0x01000193;
    }
    return hash;
  }
}
