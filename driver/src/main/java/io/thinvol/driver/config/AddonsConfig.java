package io.thinvol.driver.config;

import java.nio.file.Path;
import java.util.Set;

/**
 * The CSI-Addons endpoints.
 *
 * @param endpoint unix socket for a local csi-addons sidecar; null for none
 * @param port TLS port for the operator; 0 for none
 * @param allowedServiceAccounts who may call the TLS port, as {@code namespace:name}
 * @param tokenAudience the audience the callers' tokens must be issued for (a projected
 *     ServiceAccount token's), so that no API-server token is ever sent to a node
 */
public record AddonsConfig(
    String endpoint,
    int port,
    Path tlsCertificate,
    Path tlsKey,
    Set<String> allowedServiceAccounts,
    String tokenAudience) {

  /** The audience the operator's Deployment projects its token for. */
  public static final String DEFAULT_TOKEN_AUDIENCE = "addons.thinvol.io";

  public static AddonsConfig socketOnly(String endpoint) {
    return new AddonsConfig(endpoint, 0, null, null, Set.of(), DEFAULT_TOKEN_AUDIENCE);
  }

  public AddonsConfig {
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("addons port must be 0 (off) or 1-65535, got " + port);
    }
    if (port > 0 && (tokenAudience == null || tokenAudience.isBlank())) {
      throw new IllegalArgumentException(
          "the TLS port needs the audience of the callers' tokens (--addons-token-audience)");
    }
    for (String account : allowedServiceAccounts) {
      if (!account.matches("[a-z0-9.-]+:[a-z0-9.-]+")) {
        throw new IllegalArgumentException(
            "allowed ServiceAccount '" + account + "' is not namespace:name");
      }
    }
  }
}
