package io.thinvol.driver.auth;

import io.thinvol.driver.kube.JsonTree;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.HashSet;
import java.util.Set;

/**
 * A look at a bearer token that costs no API call: is it shaped like a ServiceAccount token of this
 * cluster issued for our audience? Three base64url parts, a header with an algorithm the API server
 * signs with and a key id, a payload whose {@code aud} names the audience and whose {@code exp}
 * lies ahead. The signature is not checked here: passing the screen only earns a TokenReview, which
 * stays the authority. Random strings and tokens for other audiences (the API server's own tokens
 * included) never reach the API server.
 */
final class TokenScreen {

  /** What the API server signs ServiceAccount tokens with (RSA keys, or ECDSA by curve). */
  static final Set<String> ALGORITHMS = Set.of("RS256", "ES256", "ES384", "ES512");

  /** gRPC refuses larger headers anyway; nothing larger is decoded. */
  static final int MAX_LENGTH = 8 * 1024;

  /** Clocks of the node and the API server may differ this much. */
  static final Duration SKEW = Duration.ofMinutes(1);

  private static final Base64.Decoder BASE64URL = Base64.getUrlDecoder();

  /**
   * @param expiresAt the token's {@code exp} when it passed
   * @param refusal why it did not pass, in words safe to send to the caller; null when it passed
   */
  record Result(Instant expiresAt, String refusal) {
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
    try {
      header = JsonTree.parse(BASE64URL.decode(parts[0]));
      payload = JsonTree.parse(BASE64URL.decode(parts[1]));
      BASE64URL.decode(parts[2]);
    } catch (IllegalArgumentException | IOException e) {
      return Result.refused("the token is not a JWT (a part is not base64url-encoded JSON)");
    }
    if (header == null || !header.isObject() || payload == null || !payload.isObject()) {
      return Result.refused("the token is not a JWT (header or payload is not a JSON object)");
    }
    if (!ALGORITHMS.contains(header.path("alg").asText())) {
      return Result.refused("the token is not signed like a ServiceAccount token " + ALGORITHMS);
    }
    if (header.path("kid").asText().isEmpty()) {
      return Result.refused("the token names no signing key (kid)");
    }
    if (!audiences(payload.path("aud")).contains(audience)) {
      return Result.refused(
          "the token is not issued for audience '"
              + audience
              + "': send a projected ServiceAccount token with that audience");
    }
    JsonTree exp = payload.path("exp");
    if (!exp.canConvertToLong()) {
      return Result.refused("the token has no expiry (exp): send a projected ServiceAccount token");
    }
    Instant expiresAt = Instant.ofEpochSecond(exp.asLong());
    if (!expiresAt.plus(SKEW).isAfter(now)) {
      return Result.refused("the token has expired");
    }
    return new Result(expiresAt, null);
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
}
