package io.thinvol.driver.cli;

import io.thinvol.driver.config.DriverConfig;
import io.thinvol.driver.server.Driver;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code thinvol driver}: serves the CSI plugin until stopped. */
@Command(
    name = "driver",
    mixinStandardHelpOptions = true,
    description = "Run the CSI plugin (Identity, Controller, Node) on a unix socket.",
    subcommands = {PreflightCommand.class})
public final class DriverCommand implements Callable<Integer> {

  private static final Logger log = LoggerFactory.getLogger(DriverCommand.class);

  @Option(
      names = "--csi-endpoint",
      defaultValue = "${env:CSI_ENDPOINT:-unix:///csi/csi.sock}",
      description = "CSI socket (env CSI_ENDPOINT). Default: ${DEFAULT-VALUE}")
  String csiEndpoint;

  @Option(
      names = "--driver-name",
      defaultValue = "${env:THINVOL_DRIVER_NAME:-thinvol.io}",
      description = "CSI driver name (env THINVOL_DRIVER_NAME). Default: ${DEFAULT-VALUE}")
  String driverName;

  @Option(
      names = "--node-id",
      defaultValue = "${env:THINVOL_NODE_ID}",
      description =
          "This node's id, the Kubernetes node name (env THINVOL_NODE_ID). Default: host name")
  String nodeId;

  @Option(
      names = "--data-dir",
      defaultValue = "${env:THINVOL_DATA_DIR:-/var/lib/thinvol/default}",
      description = "Where volume images live (env THINVOL_DATA_DIR). Default: ${DEFAULT-VALUE}")
  Path dataDir;

  @Option(
      names = "--max-volumes",
      defaultValue = "${env:THINVOL_MAX_VOLUMES:-1000}",
      description =
          "Volumes this node holds at most (env THINVOL_MAX_VOLUMES). Default: ${DEFAULT-VALUE}")
  int maxVolumes;

  @Option(
      names = "--overprovision-ratio",
      defaultValue = "${env:THINVOL_OVERPROVISION_RATIO:-1.0}",
      description =
          "Bytes of volumes one byte of disk may back, at least 1.0 (env THINVOL_OVERPROVISION_RATIO)."
              + " Default: ${DEFAULT-VALUE}")
  double overprovisionRatio;

  @Option(
      names = "--log-level",
      defaultValue = "${env:THINVOL_LOG_LEVEL:-INFO}",
      description =
          "ERROR, WARN, INFO, DEBUG or TRACE (env THINVOL_LOG_LEVEL). Default: ${DEFAULT-VALUE}")
  String logLevel;

  DriverConfig config() {
    return new DriverConfig(
        csiEndpoint,
        driverName,
        nodeId == null || nodeId.isBlank() ? hostName() : nodeId,
        dataDir.toAbsolutePath().normalize(),
        maxVolumes,
        overprovisionRatio,
        Version.current());
  }

  @Override
  public Integer call() throws Exception {
    LogLevel.set(logLevel);
    DriverConfig config = config();
    log.info(
        "thinvol driver {} starting: name={} node={} data-dir={}",
        config.version(),
        config.driverName(),
        config.nodeId(),
        config.dataDir());
    Driver driver = Driver.start(config);
    Runtime.getRuntime().addShutdownHook(new Thread(driver::close, "shutdown"));
    driver.awaitTermination();
    return 0;
  }

  static String hostName() {
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (UnknownHostException e) {
      throw new IllegalStateException("cannot determine the host name; set --node-id", e);
    }
  }
}
