package io.thinvol.driver.cli;

import io.thinvol.driver.GatedRunner;
import io.thinvol.driver.server.Driver;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import picocli.CommandLine;

/**
 * The driver (same arguments as {@code thinvol driver ...}) whose calls of one program or system
 * call (environment {@value #HELD}, e.g. {@code mount --bind} or {@code umount}) wait at a gate
 * that never opens, so a test can kill it in the middle of that call. It creates {@code
 * <data-dir>/../call-held} once a call has reached the gate.
 */
public final class HeldCallDriver {

  public static final String HELD = "THINVOL_TEST_HELD_CALL";

  private HeldCallDriver() {}

  public static void main(String[] args) throws Exception {
    run(System.getenv(HELD), "call-held", args);
  }

  static void run(String program, String signalName, String[] args) throws Exception {
    DriverCommand command = new DriverCommand();
    new CommandLine(command).parseArgs(Arrays.copyOfRange(args, 1, args.length));
    GatedRunner runner = new GatedRunner(program);
    runner.hold();
    Driver driver = Driver.start(command.config(), command.addonsConfig(), null, runner);
    Path signal = command.config().dataDir().resolveSibling(signalName);
    Thread signaller =
        new Thread(
            () -> {
              try {
                awaitArrival(runner);
                Files.createFile(signal);
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            });
    signaller.setDaemon(true);
    signaller.start();
    driver.awaitTermination();
  }

  /** However long the test takes to get there: the runner's own wait gives up after 30 s. */
  private static void awaitArrival(GatedRunner runner) throws InterruptedException {
    while (true) {
      try {
        runner.awaitArrival();
        return;
      } catch (AssertionError notYet) {
        // keep waiting: the test kills this process
      }
    }
  }
}
