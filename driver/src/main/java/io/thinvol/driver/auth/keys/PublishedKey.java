package io.thinvol.driver.auth.keys;

import java.security.PublicKey;

/**
 * One key the cluster signs ServiceAccount tokens with, as its key set publishes it.
 *
 * @param algorithm the one algorithm the key verifies (the API server signs with RS256 for an RSA
 *     key and by curve for an ECDSA key)
 */
public record PublishedKey(String keyId, JwsAlgorithm algorithm, PublicKey key) {

  /** Whether {@code signature} over {@code signingInput} is this key's under {@code alg}. */
  public boolean verifies(JwsAlgorithm alg, byte[] signingInput, byte[] signature) {
    return alg == algorithm && algorithm.verifies(key, signingInput, signature);
  }
}
