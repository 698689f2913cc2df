package io.thinvol.driver.cli;

import io.thinvol.driver.GatedRunner;
import io.thinvol.driver.server.Driver;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import picocli.CommandLine;

/**
 * The driver (same arguments as {@code thinvol driver ...}) whose full image copies wait at a gate
 * that never opens, so a test can kill it in the middle of a copy. It creates {@code
 * <data-dir>/../copy-held} once a copy has reached the gate.
 */
public final class HeldCopyDriver {

  private HeldCopyDriver() {}

  public static void main(String[] args) throws Exception {
    DriverCommand command = new DriverCommand();
    new CommandLine(command).parseArgs(Arrays.copyOfRange(args, 1, args.length));
    GatedRunner runner = new GatedRunner("cp --sparse=always");
    runner.hold();
    Driver driver = Driver.start(command.config(), command.addonsConfig(), null, runner);
    Path signal = command.config().dataDir().resolveSibling("copy-held");
    Thread signaller =
        new Thread(
            () -> {
              try {
                runner.awaitArrival();
                Files.createFile(signal);
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            });
    signaller.setDaemon(true);
    signaller.start();
    driver.awaitTermination();
  }
}
