package io.thinvol.driver.auth;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.SecureRandom;
import java.security.Signature;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Map;

/**
 * Tokens as the API server issues them for ServiceAccounts (RS256, signed with a key of this
 * "cluster"), and the garbage a sprayer sends instead.
 */
public final class ServiceAccountTokens {

  static final String ISSUER = "https://kubernetes.default.svc.cluster.local";
  static final String API_SERVER_AUDIENCE = "https://kubernetes.default.svc.cluster.local";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Base64.Encoder BASE64URL = Base64.getUrlEncoder().withoutPadding();

  private final KeyPair key;
  private final SecureRandom random = new SecureRandom();

  public ServiceAccountTokens() {
    try {
      KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
      generator.initialize(2048);
      key = generator.generateKeyPair();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  /** A signed token of {@code namespace:name} for {@code audience}, valid until {@code exp}. */
  public String issue(String account, String audience, Instant exp) {
    String header = encode(Map.of("alg", "RS256", "kid", "key-1", "typ", "JWT"));
    String payload = claims(account, audience, exp);
    try {
      Signature rsa = Signature.getInstance("SHA256withRSA");
      rsa.initSign(key.getPrivate());
      rsa.update((header + "." + payload).getBytes(StandardCharsets.US_ASCII));
      return header + "." + payload + "." + BASE64URL.encodeToString(rsa.sign());
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  private String claims(String account, String audience, Instant exp) {
    return encode(
        Map.of(
            "iss",
            ISSUER,
            "aud",
            List.of(audience),
            "sub",
            "system:serviceaccount:" + account,
            "exp",
            exp.getEpochSecond(),
            "iat",
            exp.getEpochSecond() - 600,
            "jti",
            Long.toHexString(random.nextLong())));
  }

  /** A random base64url string, as long as a real token. */
  String randomString() {
    byte[] bytes = new byte[random.nextInt(20, 900)];
    random.nextBytes(bytes);
    return BASE64URL.encodeToString(bytes);
  }

  /**
   * A token shaped like a ServiceAccount token with a random key id, subject and signature, for the
   * API server's audience or a random one: what a sprayer or a replayed API-server token looks
   * like.
   */
  String randomJwt() {
    return forged(random.nextBoolean() ? API_SERVER_AUDIENCE : randomString());
  }

  /** Claims as the API server would write them for {@code audience}, but no valid signature. */
  public String forged(String audience) {
    String header = encode(Map.of("alg", "RS256", "kid", randomString().substring(0, 10)));
    String payload =
        claims(
            "default:" + Integer.toHexString(random.nextInt()),
            audience,
            Instant.now().plusSeconds(3600));
    byte[] signature = new byte[256];
    random.nextBytes(signature);
    return header + "." + payload + "." + BASE64URL.encodeToString(signature);
  }

  /** The audiences in a token's payload (the mock API server's view of it). */
  static List<String> audiences(String token) {
    try {
      JsonNode payload = JSON.readTree(Base64.getUrlDecoder().decode(token.split("\\.")[1]));
      return JSON.convertValue(payload.path("aud"), List.class);
    } catch (IOException | RuntimeException e) {
      return List.of();
    }
  }

  private static String encode(Map<String, ?> claims) {
    try {
      return BASE64URL.encodeToString(JSON.writeValueAsBytes(claims));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
