package io.thinvol.operator.evacuate;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** Short SHA-256 digests, for names that must be stable and within a length. */
final class Digest {

  private Digest() {}

  /** The first {@code length} hex digits of the SHA-256 of {@code text}. */
  static String hex(String text, int length) {
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(digest).substring(0, length);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java runtime has SHA-256", e);
    }
  }
}
