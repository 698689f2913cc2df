package io.thinvol.driver.auth;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.thinvol.driver.auth.keys.JwsAlgorithm;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.MessageDigest;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.interfaces.ECPublicKey;
import java.security.interfaces.RSAPublicKey;
import java.security.spec.ECGenParameterSpec;
import java.time.Instant;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Tokens as the API server issues them for ServiceAccounts (claims as Kubernetes'
 * pkg/serviceaccount writes them, signed with a key of this "cluster" whose id is, as there, the
 * SHA-256 of its DER form), the key set it publishes, and the garbage a sprayer sends instead.
 */
public final class ServiceAccountTokens {

  static final String ISSUER = "https://kubernetes.default.svc.cluster.local";
  static final String API_SERVER_AUDIENCE = "https://kubernetes.default.svc.cluster.local";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Base64.Encoder BASE64URL = Base64.getUrlEncoder().withoutPadding();
  private static final Map<JwsAlgorithm, String> JDK_SIGNATURES =
      Map.of(
          JwsAlgorithm.RS256, "SHA256withRSA",
          JwsAlgorithm.ES256, "SHA256withECDSAinP1363Format",
          JwsAlgorithm.ES384, "SHA384withECDSAinP1363Format",
          JwsAlgorithm.ES512, "SHA512withECDSAinP1363Format");
  private static final Map<JwsAlgorithm, String> CURVES =
      Map.of(
          JwsAlgorithm.ES256, "secp256r1",
          JwsAlgorithm.ES384, "secp384r1",
          JwsAlgorithm.ES512, "secp521r1");

  private final JwsAlgorithm algorithm;
  private final KeyPair key;
  private final String keyId;
  private final SecureRandom random = new SecureRandom();

  /** A cluster signing with a 2048-bit RSA key (RS256), as most do. */
  public ServiceAccountTokens() {
    this(JwsAlgorithm.RS256);
  }

  /** A cluster signing with a new key for {@code algorithm}: RSA, or ECDSA on its curve. */
  public ServiceAccountTokens(JwsAlgorithm algorithm) {
    this(algorithm, generate(algorithm));
  }

  /** A cluster signing with {@code key}, which suits {@code algorithm}. */
  public ServiceAccountTokens(JwsAlgorithm algorithm, KeyPair key) {
    this.algorithm = algorithm;
    this.key = key;
    try {
      keyId =
          BASE64URL.encodeToString(
              MessageDigest.getInstance("SHA-256").digest(key.getPublic().getEncoded()));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  private static KeyPair generate(JwsAlgorithm algorithm) {
    try {
      KeyPairGenerator generator;
      if (algorithm == JwsAlgorithm.RS256) {
        generator = KeyPairGenerator.getInstance("RSA");
        generator.initialize(2048);
      } else {
        generator = KeyPairGenerator.getInstance("EC");
        generator.initialize(new ECGenParameterSpec(CURVES.get(algorithm)));
      }
      return generator.generateKeyPair();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  public String keyId() {
    return keyId;
  }

  /** The public half of the cluster's key, as the key set publishes it. */
  public PublicKey publicKey() {
    return key.getPublic();
  }

  /** A signed token of {@code namespace:name} for {@code audience}, valid until {@code exp}. */
  public String issue(String account, String audience, Instant exp) {
    return sign(header(), claims(account, audience, exp));
  }

  /** The header the API server writes. */
  public Map<String, Object> header() {
    return new LinkedHashMap<>(Map.of("alg", algorithm.name(), "kid", keyId));
  }

  /** The claims the API server writes for a pod's projected token; a map to change. */
  public Map<String, Object> claims(String account, String audience, Instant exp) {
    String[] namespaceAndName = account.split(":");
    Map<String, Object> claims = new LinkedHashMap<>();
    claims.put("aud", List.of(audience));
    claims.put("exp", exp.getEpochSecond());
    long issued = Instant.now().getEpochSecond();
    claims.put("iat", issued);
    claims.put("iss", ISSUER);
    claims.put("jti", UUID.randomUUID().toString());
    claims.put(
        "kubernetes.io",
        Map.of(
            "namespace",
            namespaceAndName[0],
            "pod",
            Map.of("name", namespaceAndName[1] + "-0", "uid", UUID.randomUUID().toString()),
            "serviceaccount",
            Map.of("name", namespaceAndName[1], "uid", UUID.randomUUID().toString())));
    claims.put("nbf", issued);
    claims.put("sub", "system:serviceaccount:" + account);
    return claims;
  }

  /** {@code header} and {@code claims} signed with this cluster's key. */
  public String sign(Map<String, ?> header, Map<String, ?> claims) {
    String signingInput = encode(header) + "." + encode(claims);
    try {
      Signature signer = Signature.getInstance(JDK_SIGNATURES.get(algorithm));
      signer.initSign(key.getPrivate());
      signer.update(signingInput.getBytes(StandardCharsets.US_ASCII));
      return signingInput + "." + BASE64URL.encodeToString(signer.sign());
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The key set the cluster publishes at /openid/v1/jwks, as the API server writes it. */
  public String jwks() {
    Map<String, Object> jwk = new LinkedHashMap<>();
    jwk.put("use", "sig");
    jwk.put("kid", keyId);
    jwk.put("alg", algorithm.name());
    if (key.getPublic() instanceof RSAPublicKey rsa) {
      jwk.put("kty", "RSA");
      jwk.put("n", BASE64URL.encodeToString(unsigned(rsa.getModulus(), 0)));
      jwk.put("e", BASE64URL.encodeToString(unsigned(rsa.getPublicExponent(), 0)));
    } else {
      ECPublicKey ec = (ECPublicKey) key.getPublic();
      int size = (ec.getParams().getCurve().getField().getFieldSize() + 7) / 8;
      jwk.put("kty", "EC");
      jwk.put("crv", "P-" + ec.getParams().getCurve().getField().getFieldSize());
      jwk.put("x", BASE64URL.encodeToString(unsigned(ec.getW().getAffineX(), size)));
      jwk.put("y", BASE64URL.encodeToString(unsigned(ec.getW().getAffineY(), size)));
    }
    try {
      return JSON.writeValueAsString(Map.of("keys", List.of(jwk)));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Big-endian without a sign byte, left-padded with zeros to {@code size} bytes if longer. */
  private static byte[] unsigned(BigInteger value, int size) {
    byte[] bytes = value.toByteArray();
    if (bytes[0] == 0 && bytes.length > 1) {
      bytes = Arrays.copyOfRange(bytes, 1, bytes.length);
    }
    if (bytes.length >= size) {
      return bytes;
    }
    byte[] padded = new byte[size];
    System.arraycopy(bytes, 0, padded, size - bytes.length, bytes.length);
    return padded;
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
    String audience = random.nextBoolean() ? API_SERVER_AUDIENCE : randomString();
    Map<String, Object> header = header();
    header.put("kid", randomString().substring(0, 10));
    return withRandomSignature(
        header, claims(randomAccount(), audience, Instant.now().plusSeconds(3600)));
  }

  /**
   * What a forger who read the cluster's published facts sends: the header (its algorithm and key
   * id) and claims the API server would write for {@code audience}, with a random signature.
   */
  public String forged(String audience) {
    return forged(randomAccount(), audience);
  }

  /** As {@link #forged(String)}, claiming to be {@code account}. */
  public String forged(String account, String audience) {
    return withRandomSignature(
        header(), claims(account, audience, Instant.now().plusSeconds(3600)));
  }

  private String randomAccount() {
    return "default:sa-" + Integer.toHexString(random.nextInt());
  }

  /** A signature of the length this cluster's key gives, of random bytes. */
  private String withRandomSignature(Map<String, ?> header, Map<String, ?> claims) {
    byte[] signature =
        new byte
            [key.getPublic() instanceof RSAPublicKey rsa
                ? (rsa.getModulus().bitLength() + 7) / 8
                : 2
                    * ((((ECPublicKey) key.getPublic()).getParams().getOrder().bitLength() + 7)
                        / 8)];
    random.nextBytes(signature);
    return encode(header) + "." + encode(claims) + "." + BASE64URL.encodeToString(signature);
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

  static String encode(Map<String, ?> json) {
    try {
      return BASE64URL.encodeToString(JSON.writeValueAsBytes(json));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
