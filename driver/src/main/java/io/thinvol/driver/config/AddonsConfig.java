package io.thinvol.driver.config;

import java.nio.file.Path;
import java.util.Set;

/**
 * The CSI-Addons endpoints.
 *
 * @param endpoint unix socket for a local csi-addons sidecar; null for none
 * @param port TLS port for the operator; 0 for none
 * @param allowedServiceAccounts who may call the TLS port, as {@code namespace:name}
 */
public record AddonsConfig(
    String endpoint,
    int port,
    Path tlsCertificate,
    Path tlsKey,
    Set<String> allowedServiceAccounts) {

  public static AddonsConfig socketOnly(String endpoint) {
    return new AddonsConfig(endpoint, 0, null, null, Set.of());
  }

  public AddonsConfig {
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("addons port must be 0 (off) or 1-65535, got " + port);
    }
    for (String account : allowedServiceAccounts) {
      if (!account.matches("[a-z0-9.-]+:[a-z0-9.-]+")) {
        throw new IllegalArgumentException(
            "allowed ServiceAccount '" + account + "' is not namespace:name");
      }
    }
  }
}
