package io.thinvol.addons.resolve;

import io.fabric8.kubernetes.api.model.Secret;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Optional;

/** The PEM certificate a backend's driver pods present, as its addons TLS Secret holds it. */
public final class AddonsCertificate {

  private AddonsCertificate() {}

  /** The Secret's {@code tls.crt}; empty when it holds none. */
  public static Optional<String> of(Secret secret) {
    return Optional.ofNullable(secret.getData())
        .map(d -> d.get("tls.crt"))
        .map(b64 -> new String(Base64.getDecoder().decode(b64), StandardCharsets.US_ASCII))
        .or(() -> Optional.ofNullable(secret.getStringData()).map(d -> d.get("tls.crt")));
  }
}
