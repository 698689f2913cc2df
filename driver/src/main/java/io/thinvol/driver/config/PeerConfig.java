package io.thinvol.driver.config;

import java.nio.file.Path;

/**
 * How ControllerModifyVolume reaches the node that holds a volume. The external-resizer runs once,
 * leader-elected, and calls the driver of its own node; that driver forwards a call for another
 * node's volume to the driver there, over the CSI-Addons TLS port.
 *
 * @param tokenFile this driver's projected ServiceAccount token for the addons audience, sent with
 *     a forwarded call; null: this driver forwards nothing
 * @param podNamespace the namespace of the driver pods
 * @param podSelector label selector of the driver pods (one per node)
 * @param acceptedAccount the ServiceAccount ({@code namespace:name}) whose tokens the TLS port
 *     accepts for ControllerModifyVolume and for nothing else: the drivers' own; null: none
 */
public record PeerConfig(
    Path tokenFile, String podNamespace, String podSelector, String acceptedAccount) {

  public static final PeerConfig NONE = new PeerConfig(null, null, null, null);

  public PeerConfig {
    if (tokenFile != null
        && (podNamespace == null
            || podNamespace.isBlank()
            || podSelector == null
            || podSelector.isBlank())) {
      throw new IllegalArgumentException(
          "forwarding ControllerModifyVolume (--peer-token-file) needs the driver pods' namespace"
              + " (env POD_NAMESPACE) and label selector (--peer-pod-selector)");
    }
    if (acceptedAccount != null && !acceptedAccount.matches("[a-z0-9.-]+:[a-z0-9.-]+")) {
      throw new IllegalArgumentException(
          "peer ServiceAccount '" + acceptedAccount + "' is not namespace:name");
    }
  }

  public boolean forwards() {
    return tokenFile != null;
  }
}
