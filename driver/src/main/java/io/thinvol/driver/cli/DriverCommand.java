package io.thinvol.driver.cli;

import io.thinvol.driver.auth.KubernetesTokenVerifier;
import io.thinvol.driver.config.AddonsConfig;
import io.thinvol.driver.config.DriverConfig;
import io.thinvol.driver.host.ProcessCommandRunner;
import io.thinvol.driver.kube.ApiServer;
import io.thinvol.driver.kube.DataDirCondition;
import io.thinvol.driver.metrics.HttpEndpoints;
import io.thinvol.driver.server.Driver;
import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code thinvol driver}: serves the CSI plugin until stopped. */
@Command(
    name = "driver",
    mixinStandardHelpOptions = true,
    description = "Run the CSI plugin (Identity, Controller, Node) on a unix socket.",
    subcommands = {PreflightCommand.class, ProbeCommand.class})
public final class DriverCommand implements Callable<Integer> {

  private static final Logger log = LoggerFactory.getLogger(DriverCommand.class);
  // How often the data dir is checked for the Pod condition (statfs; API calls only on change).
  private static final Duration CONDITION_PERIOD = Duration.ofSeconds(30);

  @Mixin CsiEndpointOption csiEndpoint;

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
      names = "--data-dir-dedicated-mount",
      defaultValue = "${env:THINVOL_DATA_DIR_DEDICATED_MOUNT:-false}",
      description =
          "The data dir is meant to be a filesystem mounted there: until one is, write nothing to"
              + " it and say why (env THINVOL_DATA_DIR_DEDICATED_MOUNT). Default: ${DEFAULT-VALUE}")
  boolean dataDirDedicatedMount;

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
      names = "--addons-endpoint",
      defaultValue = "${env:CSI_ADDONS_ENDPOINT:-unix:///csi/csi-addons.sock}",
      description =
          "CSI-Addons socket for a local csi-addons sidecar, 'none' for none (env"
              + " CSI_ADDONS_ENDPOINT). Default: ${DEFAULT-VALUE}")
  String addonsEndpoint;

  @Option(
      names = "--addons-port",
      defaultValue = "${env:THINVOL_ADDONS_PORT:-9070}",
      description =
          "TLS port of the CSI-Addons services for the operator, 0 for none (env"
              + " THINVOL_ADDONS_PORT). Default: ${DEFAULT-VALUE}")
  int addonsPort;

  @Option(
      names = "--addons-tls-cert",
      defaultValue = "${env:THINVOL_ADDONS_TLS_CERT:-/etc/thinvol/tls/tls.crt}",
      description = "PEM certificate of the TLS port. Default: ${DEFAULT-VALUE}")
  Path addonsTlsCert;

  @Option(
      names = "--addons-tls-key",
      defaultValue = "${env:THINVOL_ADDONS_TLS_KEY:-/etc/thinvol/tls/tls.key}",
      description = "PEM (PKCS#8) key of the TLS port. Default: ${DEFAULT-VALUE}")
  Path addonsTlsKey;

  @Option(
      names = "--addons-allowed-serviceaccounts",
      split = ",",
      defaultValue =
          "${env:THINVOL_ADDONS_ALLOWED_SERVICEACCOUNTS:-${env:POD_NAMESPACE:-thinvol-system}:thinvol-operator}",
      description =
          "ServiceAccounts (namespace:name, comma-separated) whose tokens the TLS port accepts"
              + " (env THINVOL_ADDONS_ALLOWED_SERVICEACCOUNTS). Default: the operator's,"
              + " ${DEFAULT-VALUE}")
  List<String> addonsAllowedServiceAccounts;

  @Option(
      names = "--addons-token-audience",
      defaultValue =
          "${env:THINVOL_ADDONS_TOKEN_AUDIENCE:-" + AddonsConfig.DEFAULT_TOKEN_AUDIENCE + "}",
      description =
          "Audience the callers' tokens must be issued for; the TokenReview asks for it (env"
              + " THINVOL_ADDONS_TOKEN_AUDIENCE). Default: ${DEFAULT-VALUE}")
  String addonsTokenAudience;

  @Option(
      names = "--expansion",
      defaultValue = "${env:THINVOL_EXPANSION:-controller}",
      description =
          "Where images grow: 'controller' (ControllerExpandVolume, a resizer per node or a"
              + " single node) or 'node' (NodeExpandVolume on the node holding the volume; for a"
              + " central resizer in front of a DaemonSet) (env THINVOL_EXPANSION). Default:"
              + " ${DEFAULT-VALUE}")
  String expansion;

  @Option(
      names = "--http-port",
      defaultValue = "${env:THINVOL_HTTP_PORT:-9808}",
      description =
          "Port of /healthz, /readyz and /metrics, 0 for none (env THINVOL_HTTP_PORT). Default:"
              + " ${DEFAULT-VALUE}")
  int httpPort;

  @Option(
      names = "--pod-name",
      defaultValue = "${env:POD_NAME}",
      description =
          "This driver's Pod (env POD_NAME, in POD_NAMESPACE): a full data dir is reported as its"
              + " conditions thinvol.io/DataDirFull and thinvol.io/DataDirUnusable. Default: none,"
              + " nothing is reported")
  String podName;

  @Mixin PeerOptions peers;

  @Option(
      names = "--log-level",
      defaultValue = "${env:THINVOL_LOG_LEVEL:-INFO}",
      description =
          "ERROR, WARN, INFO, DEBUG or TRACE (env THINVOL_LOG_LEVEL). Default: ${DEFAULT-VALUE}")
  String logLevel;

  DriverConfig config() {
    return new DriverConfig(
        csiEndpoint.value,
        driverName,
        nodeId == null || nodeId.isBlank() ? hostName() : nodeId,
        dataDir.toAbsolutePath().normalize(),
        maxVolumes,
        overprovisionRatio,
        Version.current(),
        switch (expansion) {
          case "controller" -> false;
          case "node" -> true;
          default ->
              throw new IllegalArgumentException(
                  "--expansion must be 'controller' or 'node', not '" + expansion + "'");
        },
        dataDirDedicatedMount);
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
    AddonsConfig addons = addonsConfig();
    // Reported from the start: a driver waiting for its data dir's mount says so on its Pod.
    String podNamespace = System.getenv("POD_NAMESPACE");
    DataDirCondition condition =
        podName == null || podName.isBlank() || podNamespace == null
            ? null
            : new DataDirCondition(
                    Driver.dataDirHealth(config),
                    ApiServer::fromEnvironment,
                    podNamespace,
                    podName,
                    Clock.systemUTC())
                .start(CONDITION_PERIOD);
    Driver driver =
        Driver.start(
            config,
            addons,
            peers.config(addons),
            addons.port() > 0
                ? new KubernetesTokenVerifier(ApiServer::fromEnvironment, addons.tokenAudience())
                : null,
            new ProcessCommandRunner());
    HttpEndpoints http = httpPort > 0 ? serveHttp(driver) : null;
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  if (condition != null) {
                    condition.close();
                  }
                  if (http != null) {
                    http.close();
                  }
                  driver.close();
                },
                "shutdown"));
    driver.awaitTermination();
    return 0;
  }

  /**
   * The health and metrics endpoints, or none when another process holds their port: they report on
   * the driver, whose volumes must be served all the same (docs/decisions.md).
   */
  private HttpEndpoints serveHttp(Driver driver) throws IOException {
    try {
      return driver.serveHttp(httpPort);
    } catch (BindException e) {
      log.warn(
          "port {} of --http-port (env THINVOL_HTTP_PORT) is taken by another process ({}):"
              + " /healthz, /readyz and /metrics are not served, the CSI service is; give this"
              + " driver a free --http-port, or 0 for none",
          httpPort,
          e.getMessage());
      return null;
    }
  }

  AddonsConfig addonsConfig() {
    if (addonsPort > 0) {
      for (Path file : List.of(addonsTlsCert, addonsTlsKey)) {
        if (!Files.isReadable(file)) {
          throw new IllegalArgumentException(
              "the TLS port needs "
                  + file
                  + " (mounted from the operator's Secret); pass --addons-tls-cert and"
                  + " --addons-tls-key, or --addons-port=0 to serve no TLS port");
        }
      }
    }
    return new AddonsConfig(
        "none".equals(addonsEndpoint) ? null : addonsEndpoint,
        addonsPort,
        addonsTlsCert,
        addonsTlsKey,
        Set.copyOf(addonsAllowedServiceAccounts),
        addonsTokenAudience);
  }

  static String hostName() {
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (UnknownHostException e) {
      throw new IllegalStateException("cannot determine the host name; set --node-id", e);
    }
  }
}
