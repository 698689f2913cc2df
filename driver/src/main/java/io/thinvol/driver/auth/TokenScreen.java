package io.thinvol.driver.auth;

import io.thinvol.driver.auth.keys.JwsAlgorithm;
import io.thinvol.driver.kube.JsonTree;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;

/**
 * A look at a bearer token that costs nothing but parsing: is it shaped like a ServiceAccount token
 * of this cluster issued for our audience? Three base64url parts, a header with an algorithm the
 * API server signs with and a key id, a payload whose {@code aud} names the audience, whose {@code
 * exp} lies ahead and {@code nbf} behind, and whose {@code sub} is a ServiceAccount. The signature
 * is not checked here ({@link SignatureCheck} does). Random strings and tokens for other audiences
 * (the API server's own tokens included) never reach the API server.
 */
final class TokenScreen {

  /** gRPC refuses larger headers anyway; nothing larger is decoded. */
  static final int MAX_LENGTH = 8 * 1024;

  /** Clocks of the node and the API server may differ this much. */
  static final Duration SKEW = Duration.ofMinutes(1);

  /** 9999-12-31T23:59:59Z: no token lives that long, and an Instant holds it with room to spare. */
  private static final long LATEST = 253_402_300_799L;

  private static final String SERVICE_ACCOUNT = "system:serviceaccount:";
  private static final Base64.Decoder BASE64URL = Base64.getUrlDecoder();

  /**
   * A token that passed the screen: what its signature check and its admission read.
   *
   * @param signingInput what the signature signs: the first two parts as sent, with their dot
   * @param subject {@code system:serviceaccount:<namespace>:<name>}
   */
  record Screened(
      JwsAlgorithm algorithm,
      String keyId,
      byte[] signingInput,
      byte[] signature,
      String subject,
      Instant expiresAt) {}

  /**
   * @param token the token when it passed; null when it did not
   * @param refusal why it did not pass, in words safe to send to the caller; null when it passed
   */
  record Result(Screened token, String refusal) {
    boolean passed() {
      return refusal == null;
    }

    static Result refused(String why) {
      return new Result(null, why);
    }
  }

  private TokenScreen() {}

  static Result screen(String token, String audience, Instant now) {
    if (token.length() > MAX_LENGTH) {
      return Result.refused("the token is longer than any ServiceAccount token");
    }
    String[] parts = token.split("\\.", -1);
    if (parts.length != 3 || parts[0].isEmpty() || parts[1].isEmpty() || parts[2].isEmpty()) {
      return Result.refused("the token is not a JWT (three base64url parts)");
    }
    JsonTree header;
    JsonTree payload;
    byte[] signature;
    try {
      header = JsonTree.parse(BASE64URL.decode(parts[0]));
      payload = JsonTree.parse(BASE64URL.decode(parts[1]));
      signature = BASE64URL.decode(parts[2]);
    } catch (IllegalArgumentException | IOException e) {
      return Result.refused("the token is not a JWT (a part is not base64url-encoded JSON)");
    }
    if (header == null || !header.isObject() || payload == null || !payload.isObject()) {
      return Result.refused("the token is not a JWT (header or payload is not a JSON object)");
    }
    Optional<JwsAlgorithm> algorithm = JwsAlgorithm.named(header.path("alg").asText());
    if (algorithm.isEmpty()) {
      return Result.refused(
          "the token is not signed like a ServiceAccount token "
              + Arrays.toString(JwsAlgorithm.values()));
    }
    if (header.has("crit")) {
      return Result.refused("the token has critical header extensions (crit): not understood");
    }
    String keyId = header.path("kid").asText();
    if (keyId.isEmpty()) {
      return Result.refused("the token names no signing key (kid)");
    }
    String refusal = claimsRefusal(payload, audience, now);
    if (refusal != null) {
      return Result.refused(refusal);
    }
    byte[] signingInput = (parts[0] + "." + parts[1]).getBytes(StandardCharsets.US_ASCII);
    return new Result(
        new Screened(
            algorithm.get(),
            keyId,
            signingInput,
            signature,
            payload.path("sub").asText(),
            time(payload.path("exp"))),
        null);
  }

  private static String claimsRefusal(JsonTree payload, String audience, Instant now) {
    if (!audiences(payload.path("aud")).contains(audience)) {
      return "the token is not issued for audience '"
          + audience
          + "': send a projected ServiceAccount token with that audience";
    }
    Instant exp = time(payload.path("exp"));
    if (exp == null) {
      return "the token has no expiry (exp): send a projected ServiceAccount token";
    }
    if (!exp.plus(SKEW).isAfter(now)) {
      return "the token has expired";
    }
    Instant nbf = time(payload.path("nbf"));
    if (payload.has("nbf") && (nbf == null || nbf.minus(SKEW).isAfter(now))) {
      return "the token is not valid yet (nbf)";
    }
    if (!serviceAccount(payload)) {
      return "the token's subject (sub) is not a ServiceAccount";
    }
    return null;
  }

  /**
   * A NumericDate (seconds since the epoch) between 1970 and 9999; null for anything else, which
   * {@link Instant} could not hold or add the skew to.
   */
  private static Instant time(JsonTree claim) {
    if (!claim.canConvertToLong() || claim.asLong() < 0 || claim.asLong() > LATEST) {
      return null;
    }
    return Instant.ofEpochSecond(claim.asLong());
  }

  /** {@code aud} is a string or an array of strings (RFC 7519 4.1.3). */
  private static Set<String> audiences(JsonTree aud) {
    if (aud.isTextual()) {
      return Set.of(aud.asText());
    }
    Set<String> all = new HashSet<>();
    if (aud.isArray()) {
      aud.forEach(a -> all.add(a.asText()));
    }
    return all;
  }

  /**
   * {@code sub} is {@code system:serviceaccount:<namespace>:<name>}, and names the account the
   * token's {@code kubernetes.io} claim names when it has one (the API server writes both).
   */
  private static boolean serviceAccount(JsonTree payload) {
    JsonTree sub = payload.path("sub");
    if (!sub.isTextual() || !sub.asText().startsWith(SERVICE_ACCOUNT)) {
      return false;
    }
    String[] account = sub.asText().substring(SERVICE_ACCOUNT.length()).split(":", -1);
    if (account.length != 2 || account[0].isEmpty() || account[1].isEmpty()) {
      return false;
    }
    JsonTree kubernetes = payload.path("kubernetes.io");
    return !payload.has("kubernetes.io")
        || account[0].equals(kubernetes.path("namespace").asText())
            && account[1].equals(kubernetes.path("serviceaccount").path("name").asText());
  }
}
