package io.thinvol.driver.server;

import io.grpc.BindableService;
import io.thinvol.driver.auth.BearerTokenInterceptor;
import io.thinvol.driver.auth.TokenVerifier;
import io.thinvol.driver.config.AddonsConfig;
import io.thinvol.driver.config.DriverConfig;
import io.thinvol.driver.core.NodeManager;
import io.thinvol.driver.core.OperationLocks;
import io.thinvol.driver.core.SpaceReclaimer;
import io.thinvol.driver.core.VolumeHealth;
import io.thinvol.driver.core.VolumeManager;
import io.thinvol.driver.csi.AddonsIdentityService;
import io.thinvol.driver.csi.ControllerService;
import io.thinvol.driver.csi.IdentityService;
import io.thinvol.driver.csi.NodeService;
import io.thinvol.driver.csi.ReclaimSpaceService;
import io.thinvol.driver.host.CommandRunner;
import io.thinvol.driver.host.HostTools;
import io.thinvol.driver.host.ProcessCommandRunner;
import io.thinvol.driver.store.Catalog;
import io.thinvol.driver.store.DataLayout;
import java.io.IOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;

/**
 * The whole plugin: state rebuilt from the data dir, and the endpoints that share it: the CSI
 * socket, the CSI-Addons socket (for a local sidecar) and the CSI-Addons TLS port (for the
 * operator, token-authenticated).
 */
public final class Driver implements AutoCloseable {

  private final List<GrpcServer> servers;

  private Driver(List<GrpcServer> servers) {
    this.servers = servers;
  }

  /**
   * @param verifier checks tokens on the TLS port; only needed when {@code addons.port() > 0}
   */
  public static Driver start(DriverConfig config, AddonsConfig addons, TokenVerifier verifier)
      throws IOException {
    return start(config, addons, verifier, new ProcessCommandRunner());
  }

  /** As above, with the host commands run through {@code runner} (a test seam). */
  public static Driver start(
      DriverConfig config, AddonsConfig addons, TokenVerifier verifier, CommandRunner runner)
      throws IOException {
    DataLayout layout = new DataLayout(config.dataDir());
    Catalog catalog = Catalog.open(layout);
    HostTools host = new HostTools(runner);
    OperationLocks locks = new OperationLocks();
    VolumeManager volumes = new VolumeManager(config, layout, catalog, host, locks);
    NodeManager node = new NodeManager(layout, volumes, host, locks);
    SpaceReclaimer reclaimer = new SpaceReclaimer(layout, volumes, host, locks);
    reclaimer.recover();

    List<GrpcServer> servers = new ArrayList<>();
    try {
      servers.add(
          GrpcServer.onSocket(
              UnixSockets.path(config.csiEndpoint()),
              List.of(
                  new IdentityService(config),
                  new ControllerService(config, volumes, new VolumeHealth(layout, host)),
                  new NodeService(config, node))));
      List<BindableService> addonsServices = new ArrayList<>();
      addonsServices.add(new AddonsIdentityService(config));
      addonsServices.addAll(new ReclaimSpaceService(reclaimer).services());
      if (addons.endpoint() != null) {
        servers.add(GrpcServer.onSocket(UnixSockets.path(addons.endpoint()), addonsServices));
      }
      if (addons.port() > 0) {
        servers.add(
            GrpcServer.onTlsPort(
                addons.port(),
                addons.tlsCertificate(),
                addons.tlsKey(),
                new BearerTokenInterceptor(
                    verifier, addons.allowedServiceAccounts(), Clock.systemUTC()),
                addonsServices));
      }
    } catch (IOException | RuntimeException e) {
      servers.forEach(GrpcServer::close);
      throw e;
    }
    return new Driver(servers);
  }

  /** Convenience for a driver without CSI-Addons endpoints. */
  public static Driver start(DriverConfig config) throws IOException {
    return start(config, new AddonsConfig(null, 0, null, null, java.util.Set.of()), null);
  }

  public void awaitTermination() throws InterruptedException {
    servers.get(0).awaitTermination();
  }

  @Override
  public void close() {
    servers.forEach(GrpcServer::close);
  }
}
