package io.thinvol.driver.auth;

import io.thinvol.driver.auth.keys.SigningKeys;
import java.util.Optional;

/** Who a bearer token belongs to, as the cluster sees it. */
public interface TokenVerifier {

  /**
   * The username the token authenticates (for a ServiceAccount {@code
   * system:serviceaccount:<namespace>:<name>}), or empty when the token is not valid.
   *
   * @throws IllegalStateException when the cluster cannot be asked
   */
  Optional<String> username(String token);

  /**
   * The keys the cluster signs its tokens with, to refuse a forged token without asking; none by
   * default, and then every token that passes the screen is asked about.
   */
  default SigningKeys signingKeys() {
    return SigningKeys.NONE;
  }
}
