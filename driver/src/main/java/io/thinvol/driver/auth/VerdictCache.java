package io.thinvol.driver.auth;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What the cluster said about recent tokens, keyed by the token's hash (never the token). Accepted
 * and refused tokens are kept apart, each in a bounded least-recently-used map: a spray of bad
 * tokens evicts only other bad tokens, never the operator's.
 */
final class VerdictCache {

  /**
   * @param username who the token authenticates; null for a token the cluster refused
   * @param until when the verdict must be asked again
   */
  record Verdict(String username, Instant until) {
    boolean accepted() {
      return username != null;
    }
  }

  private final Lru accepted;
  private final Lru refused;

  VerdictCache(int acceptedCapacity, int refusedCapacity) {
    this.accepted = new Lru(acceptedCapacity);
    this.refused = new Lru(refusedCapacity);
  }

  /** The verdict on the token with this hash, if one is known and still valid at {@code now}. */
  synchronized Verdict get(String key, Instant now) {
    Verdict known = accepted.get(key);
    if (known == null) {
      known = refused.get(key);
    }
    return known != null && known.until().isAfter(now) ? known : null;
  }

  synchronized void put(String key, Verdict verdict) {
    (verdict.accepted() ? accepted : refused).put(key, verdict);
  }

  private static final class Lru extends LinkedHashMap<String, Verdict> {
    private final int capacity;

    Lru(int capacity) {
      super(16, 0.75f, true);
      this.capacity = capacity;
    }

    @Override
    protected boolean removeEldestEntry(Map.Entry<String, Verdict> eldest) {
      return size() > capacity;
    }
  }
}
