package io.thinvol.driver.store;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thinvol.driver.DriverHarness;
import io.thinvol.driver.config.DriverConfig;
import io.thinvol.driver.server.Driver;
import org.junit.jupiter.api.Test;

class DataDirLockTest {

  @Test
  void aSecondDriverOnTheSameDataDirIsRefused() throws Exception {
    try (DriverHarness first = new DriverHarness()) {
      DriverConfig sameDir =
          new DriverConfig(
              "unix://" + first.root().resolve("second.sock"),
              "test.thinvol.io",
              "node-a",
              first.dataDir(),
              10,
              1.0,
              "test");
      assertThatThrownBy(() -> Driver.start(sameDir).close())
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("another thinvol driver is using the data dir");
      first.stop();
      Driver.start(sameDir).close(); // free again once the first one stopped
      first.start();
    }
  }
}
