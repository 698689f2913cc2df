package io.thinvol.driver.auth.keys;

import io.thinvol.driver.kube.ApiServer;
import io.thinvol.driver.kube.JsonTree;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The keys the API server signs ServiceAccount tokens with, as its OIDC discovery publishes them,
 * read from the API server the driver already talks to. Every ServiceAccount may read them (the
 * default binding of {@code system:service-account-issuer-discovery} to the group {@code
 * system:serviceaccounts}), so the driver needs no RBAC for this.
 *
 * <p>{@value #JWKS_PATH} is read directly rather than the discovery document's {@code jwks_uri}:
 * the API server serves both paths whenever it serves either, and {@code jwks_uri} names the
 * issuer's external address ({@code --service-account-jwks-uri}), which a pod need not reach.
 *
 * <p>Read on the first lookup, then again for a key id not known, at most once a minute: a spray of
 * made-up key ids costs the API server one request a minute. While the keys cannot be read (403,
 * 404, unreachable, not a key set, no key this driver can verify) every lookup says so and the
 * caller falls back to asking the API server about each token; that is logged once, and once more
 * when the keys can be read again.
 */
public final class ClusterSigningKeys implements SigningKeys {

  public static final String JWKS_PATH = "/openid/v1/jwks";
  static final Duration REFRESH_INTERVAL = Duration.ofMinutes(1);

  /** Far more than a cluster publishes (one key, two while keys are rotated). */
  static final int MAX_KEYS = 64;

  private static final Logger log = LoggerFactory.getLogger(ClusterSigningKeys.class);

  // The route produces application/jwk-set+json only; "application/json" alone is refused (406).
  private static final String ACCEPT = "application/jwk-set+json, application/json";

  /**
   * @param attempted when the keys were last read; null before the first time
   * @param problem why that read failed; null when it succeeded
   */
  private record Snapshot(Map<String, PublishedKey> keys, Instant attempted, String problem) {}

  private final Supplier<ApiServer> api;
  private final Clock clock;
  private final ReentrantLock reading = new ReentrantLock();
  private volatile Snapshot current = new Snapshot(Map.of(), null, null);

  /**
   * @param api the API server, asked for only when the keys are first needed
   */
  public ClusterSigningKeys(Supplier<ApiServer> api, Clock clock) {
    this.api = api;
    this.clock = clock;
  }

  @Override
  public Lookup find(String keyId) {
    Snapshot known = current;
    if (!known.keys().containsKey(keyId) && due(known)) {
      known = reread();
    }
    PublishedKey key = known.keys().get(keyId);
    if (key != null) {
      return new Lookup.Found(key);
    }
    return known.problem() == null ? new Lookup.Unknown() : new Lookup.Unpublished(known.problem());
  }

  @Override
  public int count() {
    return current.keys().size();
  }

  private boolean due(Snapshot known) {
    return known.attempted() == null
        || !clock.instant().isBefore(known.attempted().plus(REFRESH_INTERVAL));
  }

  /**
   * One read at a time; calls that need one meanwhile wait for it (bounded by the API client's
   * timeout) and use its answer.
   */
  private Snapshot reread() {
    reading.lock();
    try {
      Snapshot known = current;
      if (due(known)) {
        current = read(known);
      }
      return current;
    } finally {
      reading.unlock();
    }
  }

  /**
   * @throws IllegalStateException when the API server cannot be asked, refuses, or answers anything
   *     but a key set with a key this driver can verify
   */
  private Map<String, PublishedKey> keySet() {
    JsonTree answer = api.get().get(JWKS_PATH, ACCEPT);
    Map<String, PublishedKey> keys;
    try {
      keys = JsonWebKeys.parse(answer, MAX_KEYS);
    } catch (IllegalStateException e) {
      throw new IllegalStateException("GET " + JWKS_PATH + ": " + e.getMessage(), e);
    }
    if (keys.isEmpty()) {
      throw new IllegalStateException("GET " + JWKS_PATH + ": no key this driver can verify");
    }
    return keys;
  }

  private Snapshot read(Snapshot before) {
    Instant now = clock.instant();
    try {
      Map<String, PublishedKey> keys = keySet();
      if (before.attempted() == null || before.problem() != null) {
        log.info(
            "checking tokens' signatures against the cluster's {} signing key(s) {}: forged"
                + " tokens are refused without a TokenReview",
            keys.size(),
            keys.keySet());
      }
      return new Snapshot(Map.copyOf(keys), now, null);
    } catch (RuntimeException e) {
      if (before.problem() == null) {
        log.warn(
            "cannot read the cluster's ServiceAccount signing keys ({}): every token that passes"
                + " the screen costs a TokenReview, as without this check; read again at most"
                + " once a minute",
            e.getMessage());
      }
      // Keys read before still verify: a token they sign is still the cluster's.
      return new Snapshot(before.keys(), now, e.getMessage());
    }
  }
}
