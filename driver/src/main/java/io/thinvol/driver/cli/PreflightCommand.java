package io.thinvol.driver.cli;

import io.thinvol.driver.preflight.Preflight;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code thinvol driver preflight}: a real volume lifecycle on this host, step by step. */
@Command(
    name = "preflight",
    mixinStandardHelpOptions = true,
    description = {
      "Drive a real lifecycle through the driver's gRPC API on this host: create, stage,"
          + " publish, write, snapshot, restore, expand, stats, block round trip, delete.",
      "Needs root, loop devices, mkfs.ext4 and mount. Leaves nothing behind."
    })
public final class PreflightCommand implements Callable<Integer> {

  @Option(
      names = "--data-dir",
      description = "Data dir to test (default: a temporary one, removed afterwards)")
  Path dataDir;

  @Option(names = "--log-level", defaultValue = "WARN", description = "Default: ${DEFAULT-VALUE}")
  String logLevel;

  @Override
  public Integer call() throws Exception {
    LogLevel.set(logLevel);
    return new Preflight(System.out).run(dataDir, DriverCommand.hostName(), Version.current());
  }
}
