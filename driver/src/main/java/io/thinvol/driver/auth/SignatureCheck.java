package io.thinvol.driver.auth;

import io.thinvol.driver.auth.keys.SigningKeys;
import io.thinvol.driver.auth.keys.SigningKeys.Lookup;

/**
 * Whether a screened token carries the cluster's signature, by the key its {@code kid} names. Only
 * the key set the cluster publishes is used: a key or key location in the token's own header
 * ({@code jwk}, {@code jku}, {@code x5u}, ...) is never looked at.
 */
final class SignatureCheck {

  /** The answer about one token's signature. */
  sealed interface Verdict {
    /** A key of the cluster signed the token: it is one the API server issued. */
    record Signed() implements Verdict {}

    /** Not the cluster's signature; {@code reason} is safe to tell the caller. */
    record Forged(String reason) implements Verdict {}

    /** The cluster's keys cannot be read: the signature was not checked. */
    record Unchecked(String reason) implements Verdict {}
  }

  private SignatureCheck() {}

  static Verdict check(TokenScreen.Screened token, SigningKeys keys) {
    Lookup lookup = keys.find(token.keyId());
    if (lookup instanceof Lookup.Found found) {
      return found.key().verifies(token.algorithm(), token.signingInput(), token.signature())
          ? new Verdict.Signed()
          : new Verdict.Forged("the token's signature is not the cluster's");
    }
    if (lookup instanceof Lookup.Unpublished unpublished) {
      return new Verdict.Unchecked(unpublished.reason());
    }
    return new Verdict.Forged("the token names a signing key (kid) the cluster does not publish");
  }
}
