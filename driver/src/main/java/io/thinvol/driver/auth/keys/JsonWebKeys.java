package io.thinvol.driver.auth.keys;

import io.thinvol.driver.kube.JsonTree;
import java.math.BigInteger;
import java.security.AlgorithmParameters;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PublicKey;
import java.security.spec.ECGenParameterSpec;
import java.security.spec.ECParameterSpec;
import java.security.spec.ECPoint;
import java.security.spec.ECPublicKeySpec;
import java.security.spec.RSAPublicKeySpec;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads a JSON Web Key Set (RFC 7517) into the signing keys it holds, by key id. Only what the API
 * server publishes is taken: RSA keys (RS256) and ECDSA keys on P-256, P-384 and P-521; a key for
 * another use, of another type, whose {@code alg} contradicts its type, or that does not decode is
 * left out and logged. At most {@code limit} keys are kept.
 */
final class JsonWebKeys {

  private static final Logger log = LoggerFactory.getLogger(JsonWebKeys.class);
  private static final Base64.Decoder BASE64URL = Base64.getUrlDecoder();

  private JsonWebKeys() {}

  /**
   * @throws IllegalStateException when {@code set} is not a key set
   */
  static Map<String, PublishedKey> parse(JsonTree set, int limit) {
    if (!set.path("keys").isArray()) {
      throw new IllegalStateException("the answer is not a JSON Web Key Set (no \"keys\" array)");
    }
    Map<String, PublishedKey> keys = new LinkedHashMap<>();
    for (JsonTree jwk : set.path("keys")) {
      String kid = jwk.path("kid").asText();
      if (keys.size() == limit) {
        log.warn("the cluster publishes more than {} signing keys; the others are ignored", limit);
        break;
      }
      if (kid.isEmpty() || keys.containsKey(kid)) {
        log.warn("a published signing key without a key id, or with a repeated one, is ignored");
        continue;
      }
      Optional<PublishedKey> key = key(kid, jwk);
      key.ifPresent(k -> keys.put(kid, k));
    }
    return keys;
  }

  private static Optional<PublishedKey> key(String kid, JsonTree jwk) {
    String use = jwk.path("use").asText("sig");
    String kty = jwk.path("kty").asText();
    try {
      PublishedKey key =
          !use.equals("sig")
              ? null
              : switch (kty) {
                case "RSA" -> rsa(kid, jwk);
                case "EC" -> ecdsa(kid, jwk);
                default -> null;
              };
      String alg = jwk.path("alg").asText();
      if (key != null && (alg.isEmpty() || alg.equals(key.algorithm().name()))) {
        return Optional.of(key);
      }
      log.warn(
          "the published key {} (kty {}, alg {}, use {}) is not one this driver verifies; ignored",
          kid,
          kty,
          alg,
          use);
    } catch (IllegalArgumentException | GeneralSecurityException e) {
      log.warn("the published key {} does not decode ({}); ignored", kid, e.getMessage());
    }
    return Optional.empty();
  }

  private static PublishedKey rsa(String kid, JsonTree jwk) throws GeneralSecurityException {
    PublicKey key =
        KeyFactory.getInstance("RSA")
            .generatePublic(new RSAPublicKeySpec(number(jwk, "n"), number(jwk, "e")));
    return new PublishedKey(kid, JwsAlgorithm.RS256, key);
  }

  private static PublishedKey ecdsa(String kid, JsonTree jwk) throws GeneralSecurityException {
    Optional<JwsAlgorithm> algorithm = JwsAlgorithm.forCurve(jwk.path("crv").asText());
    if (algorithm.isEmpty()) {
      return null;
    }
    AlgorithmParameters parameters = AlgorithmParameters.getInstance("EC");
    parameters.init(new ECGenParameterSpec(algorithm.get().jdkCurve()));
    ECPoint point = new ECPoint(number(jwk, "x"), number(jwk, "y"));
    PublicKey key =
        KeyFactory.getInstance("EC")
            .generatePublic(
                new ECPublicKeySpec(point, parameters.getParameterSpec(ECParameterSpec.class)));
    return new PublishedKey(kid, algorithm.get(), key);
  }

  /** An unsigned big-endian integer in base64url (RFC 7518 2, "Base64urlUInt"). */
  private static BigInteger number(JsonTree jwk, String member) {
    String encoded = jwk.path(member).asText();
    if (encoded.isEmpty()) {
      throw new IllegalArgumentException("no " + member);
    }
    return new BigInteger(1, BASE64URL.decode(encoded));
  }
}
