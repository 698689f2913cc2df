package io.thinvol.driver.server;

import io.thinvol.driver.config.DriverConfig;
import io.thinvol.driver.core.NodeManager;
import io.thinvol.driver.core.OperationLocks;
import io.thinvol.driver.core.VolumeHealth;
import io.thinvol.driver.core.VolumeManager;
import io.thinvol.driver.csi.ControllerService;
import io.thinvol.driver.csi.IdentityService;
import io.thinvol.driver.csi.NodeService;
import io.thinvol.driver.host.HostTools;
import io.thinvol.driver.host.ProcessCommandRunner;
import io.thinvol.driver.store.Catalog;
import io.thinvol.driver.store.DataLayout;
import java.io.IOException;
import java.util.List;

/** The whole plugin: state rebuilt from the data dir, the services, and the socket they share. */
public final class Driver implements AutoCloseable {

  private final GrpcServer server;

  private Driver(GrpcServer server) {
    this.server = server;
  }

  public static Driver start(DriverConfig config) throws IOException {
    DataLayout layout = new DataLayout(config.dataDir());
    Catalog catalog = Catalog.open(layout);
    HostTools host = new HostTools(new ProcessCommandRunner());
    OperationLocks locks = new OperationLocks();
    VolumeManager volumes = new VolumeManager(config, layout, catalog, host, locks);
    NodeManager node = new NodeManager(layout, volumes, host, locks);
    GrpcServer server =
        GrpcServer.start(
            UnixSockets.path(config.csiEndpoint()),
            List.of(
                new IdentityService(config),
                new ControllerService(config, volumes, new VolumeHealth(layout, host)),
                new NodeService(config, node)));
    return new Driver(server);
  }

  public void awaitTermination() throws InterruptedException {
    server.awaitTermination();
  }

  @Override
  public void close() {
    server.close();
  }
}
