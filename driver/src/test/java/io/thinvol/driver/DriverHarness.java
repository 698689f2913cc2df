package io.thinvol.driver;

import static org.assertj.core.api.Assertions.assertThat;

import csi.v1.VolumeCapability;
import io.thinvol.driver.client.AddonsClient;
import io.thinvol.driver.client.CsiClient;
import io.thinvol.driver.config.AddonsConfig;
import io.thinvol.driver.config.DriverConfig;
import io.thinvol.driver.host.HostCleanup;
import io.thinvol.driver.metrics.HttpEndpoints;
import io.thinvol.driver.server.Driver;
import io.thinvol.driver.store.Catalog;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * A real driver serving on a unix socket in a fresh temporary directory, and a client for it.
 * Closing it stops both and releases every mount and loop device under the directory; anything it
 * had to release is reported as a leak, after it has been released.
 */
public final class DriverHarness implements AutoCloseable {

  public static final String NODE = "node-a";

  private final Path root;
  private final Path dataDir;
  private final DriverConfig config;
  private final GatedRunner runner = new GatedRunner("fstrim");
  private Driver driver;
  private CsiClient client;
  private AddonsClient addons;

  public DriverHarness() throws IOException {
    this(Files.createTempDirectory("thinvol-test-"), null, false, 1.0);
  }

  /** A driver that grows images in NodeExpandVolume (--expansion=node). */
  public static DriverHarness withNodeExpansion() throws IOException {
    return new DriverHarness(Files.createTempDirectory("thinvol-test-"), null, true, 1.0);
  }

  /** A driver whose data dir is {@code dataDir} (the caller's to release), overprovisioned. */
  public static DriverHarness withDataDir(Path dataDir, double overprovisionRatio)
      throws IOException {
    return new DriverHarness(
        Files.createTempDirectory("thinvol-test-"), dataDir, false, overprovisionRatio);
  }

  private DriverHarness(Path root, Path dataDir, boolean nodeExpansion, double ratio)
      throws IOException {
    this.root = root;
    this.dataDir = dataDir == null ? root.resolve("data") : dataDir;
    this.config =
        new DriverConfig(
            "unix://" + root.resolve("csi.sock"),
            "test.thinvol.io",
            NODE,
            this.dataDir,
            1000,
            ratio,
            "test",
            nodeExpansion);
    start();
  }

  public void start() throws IOException {
    driver =
        Driver.start(
            config, AddonsConfig.socketOnly("unix://" + root.resolve("addons.sock")), null, runner);
    client = new CsiClient(root.resolve("csi.sock"));
    addons = new AddonsClient(root.resolve("addons.sock"));
  }

  /** Stops the driver (as a crash would, but without killing the test JVM). */
  public void stop() {
    client.close();
    addons.close();
    driver.close();
  }

  /** The CSI-Addons services (identity, ReclaimSpace) on the addons socket. */
  public AddonsClient addons() {
    return addons;
  }

  /** Removes the (empty) data dir from under the running driver, as a lost disk would. */
  public void loseDataDir() throws IOException {
    for (String entry : List.of("volumes", "snapshots", ".lock")) {
      Files.deleteIfExists(dataDir.resolve(entry));
    }
    Files.delete(dataDir);
  }

  /** Brings the data dir back after {@link #loseDataDir()}. */
  public void restoreDataDir() throws IOException {
    Files.createDirectories(dataDir.resolve("volumes"));
    Files.createDirectories(dataDir.resolve("snapshots"));
  }

  /** Starts /healthz, /readyz and /metrics on a free port; the caller closes it. */
  public HttpEndpoints serveHttp() throws IOException {
    return driver.serveHttp(0);
  }

  /** Controls the driver's {@code fstrim} runs. */
  public GatedRunner trims() {
    return runner;
  }

  public CsiClient csi() {
    return client;
  }

  public Path root() {
    return root;
  }

  public Path dataDir() {
    return dataDir;
  }

  public DriverConfig config() {
    return config;
  }

  public Path staging(String name) {
    return root.resolve("staging").resolve(name);
  }

  public Path target(String name) {
    return root.resolve("pods").resolve(name).resolve("mount");
  }

  public Path blockTarget(String name) {
    return root.resolve("pods").resolve(name).resolve("device");
  }

  public String create(String name, long bytes, VolumeCapability capability) {
    return client.createVolume(name, bytes, capability, null);
  }

  public void stage(String volumeId, Path staging, VolumeCapability capability) {
    client.stage(volumeId, staging, capability);
  }

  public void publish(
      String volumeId, Path staging, Path target, VolumeCapability capability, boolean readOnly) {
    client.publish(volumeId, staging, target, capability, readOnly);
  }

  public void unpublish(String volumeId, Path target) {
    client.unpublish(volumeId, target);
  }

  public void unstage(String volumeId, Path staging) {
    client.unstage(volumeId, staging);
  }

  @Override
  public void close() throws IOException {
    try {
      stop();
    } finally {
      List<String> leaked = HostCleanup.release(root);
      Catalog.removeTree(root);
      assertThat(leaked).as("mounts or loop devices the test left behind").isEmpty();
    }
  }
}
