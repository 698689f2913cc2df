package io.thinvol.driver.cli;

import picocli.CommandLine.Option;

/** {@code --csi-endpoint}: the CSI socket the driver serves and {@code probe} asks. */
final class CsiEndpointOption {

  @Option(
      names = "--csi-endpoint",
      defaultValue = "${env:CSI_ENDPOINT:-unix:///csi/csi.sock}",
      description = "CSI socket (env CSI_ENDPOINT). Default: ${DEFAULT-VALUE}")
  String value;
}
