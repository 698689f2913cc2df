package io.thinvol.driver.auth.keys;

import java.math.BigInteger;
import java.security.InvalidKeyException;
import java.security.NoSuchAlgorithmException;
import java.security.PublicKey;
import java.security.Signature;
import java.security.SignatureException;
import java.security.interfaces.ECPublicKey;
import java.security.interfaces.RSAPublicKey;
import java.util.Arrays;
import java.util.Optional;

/**
 * The JWS algorithms the API server signs ServiceAccount tokens with (Kubernetes'
 * pkg/serviceaccount: RS256 for an RSA key; ES256, ES384 or ES512 by the curve of an ECDSA key),
 * verified with the JDK's own providers. A JWS carries an ECDSA signature as r||s, each of the
 * curve's size (RFC 7518 3.4), which is what the JDK calls the P1363 format: no DER conversion.
 */
public enum JwsAlgorithm {
  RS256("SHA256withRSA", null, null, 0),
  ES256("SHA256withECDSAinP1363Format", "P-256", "secp256r1", 256),
  ES384("SHA384withECDSAinP1363Format", "P-384", "secp384r1", 384),
  ES512("SHA512withECDSAinP1363Format", "P-521", "secp521r1", 521);

  private final String jdkName;
  private final String curve;
  private final String jdkCurve;
  private final int fieldBits;

  JwsAlgorithm(String jdkName, String curve, String jdkCurve, int fieldBits) {
    this.jdkName = jdkName;
    this.curve = curve;
    this.jdkCurve = jdkCurve;
    this.fieldBits = fieldBits;
  }

  /** The algorithm a token's {@code alg} names; empty for any other ("none", "HS256", ...). */
  public static Optional<JwsAlgorithm> named(String alg) {
    return Arrays.stream(values()).filter(a -> a.name().equals(alg)).findFirst();
  }

  /** The ECDSA algorithm of the JWK curve {@code crv} ("P-256", ...). */
  static Optional<JwsAlgorithm> forCurve(String crv) {
    return Arrays.stream(values()).filter(a -> crv.equals(a.curve)).findFirst();
  }

  /** The curve's name for the JDK ("secp256r1", ...); null for RS256. */
  String jdkCurve() {
    return jdkCurve;
  }

  /**
   * Whether {@code signature} is {@code key}'s over {@code signingInput} under this algorithm. A
   * key of another type or curve never verifies: the header's {@code alg} cannot make an RSA key
   * check an ECDSA signature, nor a P-256 key a P-384 one.
   */
  public boolean verifies(PublicKey key, byte[] signingInput, byte[] signature) {
    boolean fits =
        this == RS256
            ? key instanceof RSAPublicKey
            : key instanceof ECPublicKey ec && validEcdsa(ec, signature);
    if (!fits) {
      return false;
    }
    try {
      Signature verifier = Signature.getInstance(jdkName);
      verifier.initVerify(key);
      verifier.update(signingInput);
      return verifier.verify(signature);
    } catch (SignatureException | InvalidKeyException e) {
      return false;
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("the JDK lacks " + jdkName, e);
    }
  }

  /**
   * The key is on this algorithm's curve, and r and s have the curve's size and lie in [1, n-1]:
   * checked here too because JDKs 15 to 18 before their April 2022 updates accepted r = s = 0 for
   * any message (CVE-2022-21449).
   */
  private boolean validEcdsa(ECPublicKey key, byte[] signature) {
    if (key.getParams().getCurve().getField().getFieldSize() != fieldBits) {
      return false;
    }
    int half = (fieldBits + 7) / 8;
    if (signature.length != 2 * half) {
      return false;
    }
    BigInteger order = key.getParams().getOrder();
    BigInteger r = new BigInteger(1, Arrays.copyOfRange(signature, 0, half));
    BigInteger s = new BigInteger(1, Arrays.copyOfRange(signature, half, 2 * half));
    return inRange(r, order) && inRange(s, order);
  }

  private static boolean inRange(BigInteger value, BigInteger order) {
    return value.signum() > 0 && value.compareTo(order) < 0;
  }
}
