package io.thinvol.driver.auth.keys;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.Signature;
import java.security.spec.ECGenParameterSpec;
import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class JwsAlgorithmTest {

  private static final byte[] INPUT =
      "eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ4In0".getBytes(StandardCharsets.US_ASCII);
  private static final Map<JwsAlgorithm, String> CURVES =
      Map.of(
          JwsAlgorithm.ES256, "secp256r1",
          JwsAlgorithm.ES384, "secp384r1",
          JwsAlgorithm.ES512, "secp521r1");

  private static KeyPair keyFor(JwsAlgorithm algorithm) throws GeneralSecurityException {
    if (algorithm == JwsAlgorithm.RS256) {
      KeyPairGenerator rsa = KeyPairGenerator.getInstance("RSA");
      rsa.initialize(2048);
      return rsa.generateKeyPair();
    }
    KeyPairGenerator ec = KeyPairGenerator.getInstance("EC");
    ec.initialize(new ECGenParameterSpec(CURVES.get(algorithm)));
    return ec.generateKeyPair();
  }

  private static byte[] sign(String jdkAlgorithm, KeyPair key) throws GeneralSecurityException {
    Signature signer = Signature.getInstance(jdkAlgorithm);
    signer.initSign(key.getPrivate());
    signer.update(INPUT);
    return signer.sign();
  }

  private static String jdkName(JwsAlgorithm algorithm) {
    return switch (algorithm) {
      case RS256 -> "SHA256withRSA";
      case ES256 -> "SHA256withECDSAinP1363Format";
      case ES384 -> "SHA384withECDSAinP1363Format";
      case ES512 -> "SHA512withECDSAinP1363Format";
    };
  }

  @ParameterizedTest
  @EnumSource(JwsAlgorithm.class)
  @DisplayName("A signature of the key verifies; any changed byte of input or signature does not")
  void verifies(JwsAlgorithm algorithm) throws GeneralSecurityException {
    KeyPair key = keyFor(algorithm);
    byte[] signature = sign(jdkName(algorithm), key);
    assertThat(algorithm.verifies(key.getPublic(), INPUT, signature)).isTrue();

    byte[] otherInput = INPUT.clone();
    otherInput[3] ^= 1;
    assertThat(algorithm.verifies(key.getPublic(), otherInput, signature)).isFalse();
    byte[] otherSignature = signature.clone();
    otherSignature[signature.length - 1] ^= 1;
    assertThat(algorithm.verifies(key.getPublic(), INPUT, otherSignature)).isFalse();
    assertThat(algorithm.verifies(keyFor(algorithm).getPublic(), INPUT, signature))
        .as("another key of the same kind")
        .isFalse();
    assertThat(algorithm.verifies(key.getPublic(), INPUT, Arrays.copyOf(signature, 10)))
        .as("truncated")
        .isFalse();
  }

  @Test
  @DisplayName("ES256 reads r||s as JWS writes it: the DER form the JDK's plain ECDSA gives fails")
  void ecdsaIsRawNotDer() throws GeneralSecurityException {
    KeyPair key = keyFor(JwsAlgorithm.ES256);
    assertThat(sign("SHA256withECDSAinP1363Format", key)).hasSize(64);
    assertThat(JwsAlgorithm.ES256.verifies(key.getPublic(), INPUT, sign("SHA256withECDSA", key)))
        .isFalse();
  }

  @Test
  @DisplayName("r = s = 0 never verifies (CVE-2022-21449), nor r or s at or above the order")
  void psychicSignatures() throws GeneralSecurityException {
    KeyPair key = keyFor(JwsAlgorithm.ES256);
    assertThat(JwsAlgorithm.ES256.verifies(key.getPublic(), INPUT, new byte[64])).isFalse();
    byte[] ones = new byte[64];
    Arrays.fill(ones, (byte) 0xff);
    assertThat(JwsAlgorithm.ES256.verifies(key.getPublic(), INPUT, ones)).isFalse();
  }

  @Test
  @DisplayName("A key verifies only its own algorithm: not another type, not another curve")
  void keyAndAlgorithmMustMatch() throws GeneralSecurityException {
    KeyPair rsa = keyFor(JwsAlgorithm.RS256);
    KeyPair p256 = keyFor(JwsAlgorithm.ES256);
    assertThat(JwsAlgorithm.ES256.verifies(rsa.getPublic(), INPUT, sign("SHA256withRSA", rsa)))
        .isFalse();
    assertThat(
            JwsAlgorithm.RS256.verifies(
                p256.getPublic(), INPUT, sign("SHA256withECDSAinP1363Format", p256)))
        .isFalse();
    // A P-256 signature checked as ES384 (SHA-384 over a P-256 key): refused by the curve.
    Signature sha384OnP256 = Signature.getInstance("SHA384withECDSAinP1363Format");
    sha384OnP256.initSign(p256.getPrivate());
    sha384OnP256.update(INPUT);
    assertThat(JwsAlgorithm.ES384.verifies(p256.getPublic(), INPUT, sha384OnP256.sign())).isFalse();
  }

  @Test
  @DisplayName("Only the names the API server signs with are algorithms: not none, not HS256")
  void named() {
    assertThat(JwsAlgorithm.named("RS256")).contains(JwsAlgorithm.RS256);
    assertThat(JwsAlgorithm.named("ES256")).contains(JwsAlgorithm.ES256);
    for (String other : new String[] {"none", "None", "HS256", "rs256", "PS256", "EdDSA", ""}) {
      assertThat(JwsAlgorithm.named(other)).as(other).isEmpty();
    }
  }
}
