package io.thinvol.driver.preflight;

import io.thinvol.driver.client.AddonsClient;
import io.thinvol.driver.client.CsiClient;
import io.thinvol.driver.config.AddonsConfig;
import io.thinvol.driver.config.DriverConfig;
import io.thinvol.driver.host.HostCleanup;
import io.thinvol.driver.server.Driver;
import io.thinvol.driver.store.Catalog;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * {@code thinvol driver preflight}: starts a driver on a temporary socket and drives a real volume
 * lifecycle through it on this host. Exits non-zero on any failure and leaves no loop device, mount
 * or file behind.
 */
public final class Preflight {

  private final PrintStream out;
  private final String path;

  public Preflight(PrintStream out) {
    this(out, System.getenv("PATH"));
  }

  /** {@code path}: where the host tools are looked for (the PATH the driver's commands use). */
  Preflight(PrintStream out, String path) {
    this.out = out;
    this.path = path;
  }

  /** Returns the process exit code: 0 when every step passed. */
  public int run(Path dataDir, String nodeId, String version) throws IOException {
    out.printf(
        "thinvol preflight %s on node %s, data dir %s%n%n",
        version, nodeId, dataDir != null ? dataDir : "a temporary one in /var/tmp");
    StepRunner steps = new StepRunner(out);
    steps.step("host tools are installed", () -> HostPrerequisites.check(path));
    if (steps.failed() > 0) {
      return finish(steps);
    }
    Path work = Files.createTempDirectory(Path.of("/var/tmp"), "thinvol-preflight-");
    Path data = dataDir != null ? dataDir.toAbsolutePath().normalize() : work.resolve("data");
    Path socket = work.resolve("csi.sock");
    DriverConfig config =
        new DriverConfig(
            "unix://" + socket, "preflight.thinvol.io", nodeId, data, 1000, 1.0, version);
    Path addonsSocket = work.resolve("csi-addons.sock");
    try (Driver driver =
            Driver.start(config, AddonsConfig.socketOnly("unix://" + addonsSocket), null);
        CsiClient csi = new CsiClient(socket);
        AddonsClient addons = new AddonsClient(addonsSocket)) {
      new LifecycleScenario(csi, addons, data, work, steps).run();
    } finally {
      List<String> leftovers = HostCleanup.release(work);
      if (dataDir == null) {
        leftovers.addAll(HostCleanup.release(data));
      }
      steps.always(
          "nothing left behind",
          () -> {
            if (!leftovers.isEmpty()) {
              throw new IllegalStateException("had to force the release of " + leftovers);
            }
            return "no loop device, mount or temporary file remains";
          });
      Catalog.removeTree(work);
    }
    return finish(steps);
  }

  private int finish(StepRunner steps) {
    out.println();
    out.println(steps.summary());
    return steps.failed() == 0 ? 0 : 1;
  }
}
