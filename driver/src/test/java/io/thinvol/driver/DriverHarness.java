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
import java.util.ArrayList;
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
  private final SmallFilesystem dataFs;
  private final GatedRunner runner;
  private Driver driver;
  private CsiClient client;
  private AddonsClient addons;

  public DriverHarness() throws IOException {
    this(Files.createTempDirectory("thinvol-test-"), null, null, 1000, 1.0, false, "FITRIM");
  }

  /** A driver that grows images in NodeExpandVolume (--expansion=node). */
  public static DriverHarness withNodeExpansion() throws IOException {
    return new DriverHarness(
        Files.createTempDirectory("thinvol-test-"), null, null, 1000, 1.0, true, "FITRIM");
  }

  /**
   * A driver whose data dir is {@code dataDir} (e.g. a filesystem the test mounted, which it also
   * unmounts) and whose runner gates {@code program}.
   */
  public static DriverHarness on(Path dataDir, String program) throws IOException {
    return new DriverHarness(
        Files.createTempDirectory("thinvol-test-"), dataDir, null, 1000, 1.0, false, program);
  }

  /** A driver whose runner gates {@code program} (see {@link #gate()}). */
  public static DriverHarness gating(String program) throws IOException {
    return new DriverHarness(
        Files.createTempDirectory("thinvol-test-"), null, null, 1000, 1.0, false, program);
  }

  /** A driver whose data dir is {@code dataDir} (the caller's to release), overprovisioned. */
  public static DriverHarness withDataDir(Path dataDir, double overprovisionRatio)
      throws IOException {
    return new DriverHarness(
        Files.createTempDirectory("thinvol-test-"),
        dataDir,
        null,
        1000,
        overprovisionRatio,
        false,
        "FITRIM");
  }

  /**
   * A driver whose data dir is a small filesystem of its own ({@code bytes}, ext4 on a loop
   * device), holding at most {@code maxVolumes} volumes.
   */
  public static DriverHarness onSmallDataDir(long bytes, int maxVolumes) throws IOException {
    SmallFilesystem fs = new SmallFilesystem(bytes);
    try {
      return new DriverHarness(
          Files.createTempDirectory("thinvol-test-"),
          fs.mountPoint(),
          fs,
          maxVolumes,
          1.0,
          false,
          "FITRIM");
    } catch (IOException | RuntimeException e) {
      fs.close();
      throw e;
    }
  }

  private DriverHarness(
      Path root,
      Path dataDir,
      SmallFilesystem dataFs,
      int maxVolumes,
      double overprovisionRatio,
      boolean nodeExpansion,
      String gatedProgram)
      throws IOException {
    this.root = root;
    this.dataDir = dataDir == null ? root.resolve("data") : dataDir;
    this.dataFs = dataFs;
    this.runner = new GatedRunner(gatedProgram);
    this.config =
        new DriverConfig(
            "unix://" + root.resolve("csi.sock"),
            "test.thinvol.io",
            NODE,
            this.dataDir,
            maxVolumes,
            overprovisionRatio,
            "test",
            nodeExpansion,
            false);
    start();
  }

  /** The data dir's own filesystem, for {@link #onSmallDataDir}. */
  public SmallFilesystem dataFilesystem() {
    return dataFs;
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
    for (String entry : List.of("volumes", "snapshots", "groups", ".lock")) {
      Files.deleteIfExists(dataDir.resolve(entry));
    }
    Files.delete(dataDir);
  }

  /** Brings the data dir back after {@link #loseDataDir()}. */
  public void restoreDataDir() throws IOException {
    Files.createDirectories(dataDir.resolve("volumes"));
    Files.createDirectories(dataDir.resolve("snapshots"));
    Files.createDirectories(dataDir.resolve("groups"));
  }

  /** Starts /healthz, /readyz and /metrics on a free port; the caller closes it. */
  public HttpEndpoints serveHttp() throws IOException {
    return driver.serveHttp(0);
  }

  /** Controls the driver's {@code fstrim} runs. */
  public GatedRunner trims() {
    return runner;
  }

  /** Controls the runs of the program this harness gates, and records every command. */
  public GatedRunner gate() {
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
      List<String> leaked = new ArrayList<>(HostCleanup.release(root));
      if (dataFs != null) {
        // the volumes' mounts and devices live under the data dir, outside the root
        leaked.addAll(HostCleanup.release(dataDir.resolve("volumes")));
        leaked.addAll(HostCleanup.release(dataDir.resolve("snapshots")));
        dataFs.close();
      }
      Catalog.removeTree(root);
      assertThat(leaked).as("mounts or loop devices the test left behind").isEmpty();
    }
  }
}
