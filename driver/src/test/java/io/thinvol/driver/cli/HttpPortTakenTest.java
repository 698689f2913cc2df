package io.thinvol.driver.cli;

import static org.assertj.core.api.Assertions.assertThat;

import csi.v1.GetCapacityRequest;
import io.thinvol.driver.DriverProcess;
import io.thinvol.driver.host.HostCleanup;
import io.thinvol.driver.store.Catalog;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Two drivers on one host (issue 29): the second finds the health port taken. The health endpoint
 * reports on the driver; it must not stop the CSI service, and the log says which port and flag.
 */
class HttpPortTakenTest {

  private Path root;

  @BeforeEach
  void createRoot() throws Exception {
    root = Files.createTempDirectory("thinvol-http-port-");
  }

  @AfterEach
  void cleanUp() throws Exception {
    List<String> leaked = HostCleanup.release(root);
    Catalog.removeTree(root);
    assertThat(leaked).as("left behind").isEmpty();
  }

  @Test
  void aTakenHealthPortIsLoggedAndTheCsiServiceServes() throws Exception {
    try (ServerSocket other = new ServerSocket()) {
      other.bind(new InetSocketAddress(0)); // all addresses, as the driver binds
      int port = other.getLocalPort();
      try (DriverProcess driver =
          DriverProcess.start(root, "node-a", List.of("--http-port=" + port), Map.of())) {
        assertThat(
                driver
                    .csi()
                    .controller()
                    .getCapacity(GetCapacityRequest.getDefaultInstance())
                    .getAvailableCapacity())
            .isPositive();
      }
      assertThat(Files.readString(root.resolve("driver.log")))
          .contains("port " + port + " of --http-port (env THINVOL_HTTP_PORT) is taken")
          .contains("the CSI service is")
          .doesNotContain("BindException");
    }
  }
}
