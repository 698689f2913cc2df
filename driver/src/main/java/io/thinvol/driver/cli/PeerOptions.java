package io.thinvol.driver.cli;

import io.thinvol.driver.config.AddonsConfig;
import io.thinvol.driver.config.PeerConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** The flags of ControllerModifyVolume forwarding between the drivers of a cluster. */
final class PeerOptions {

  @Option(
      names = "--peer-token-file",
      defaultValue = "${env:THINVOL_PEER_TOKEN_FILE}",
      description =
          "This driver's projected ServiceAccount token for the addons audience: with it,"
              + " ControllerModifyVolume of a volume on another node is forwarded to that node's"
              + " driver (env THINVOL_PEER_TOKEN_FILE). Default: none, no forwarding")
  Path tokenFile;

  @Option(
      names = "--peer-pod-selector",
      defaultValue = "${env:THINVOL_PEER_POD_SELECTOR}",
      description =
          "Label selector of the driver pods in POD_NAMESPACE, where forwarded calls go (env"
              + " THINVOL_PEER_POD_SELECTOR)")
  String podSelector;

  @Option(
      names = "--peer-serviceaccount",
      defaultValue = "${env:THINVOL_PEER_SERVICEACCOUNT}",
      description =
          "ServiceAccount (namespace:name) of the peer drivers: the TLS port accepts its tokens for"
              + " a forwarded ControllerModifyVolume and nothing else (env"
              + " THINVOL_PEER_SERVICEACCOUNT). Default: none")
  String serviceAccount;

  PeerConfig config(AddonsConfig addons) {
    if (tokenFile != null && !Files.isReadable(addons.tlsCertificate())) {
      throw new IllegalArgumentException(
          "forwarding ControllerModifyVolume (--peer-token-file) verifies peers with "
              + addons.tlsCertificate()
              + " (--addons-tls-cert), which cannot be read");
    }
    return new PeerConfig(
        tokenFile,
        System.getenv("POD_NAMESPACE"),
        blankToNull(podSelector),
        blankToNull(serviceAccount));
  }

  private static String blankToNull(String value) {
    return value == null || value.isBlank() ? null : value.strip();
  }
}
