package io.thinvol.driver.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.thinvol.driver.DriverProcess;
import io.thinvol.driver.host.HostCleanup;
import io.thinvol.driver.store.Catalog;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * {@code thinvol driver probe}: ready from a serving driver; from a socket nobody serves, exit 1
 * once its timeout has passed, saying which endpoint and why.
 */
class ProbeCommandTest {

  private Path root;

  @BeforeEach
  void createRoot() throws Exception {
    root = Files.createTempDirectory("thinvol-probe-");
  }

  @AfterEach
  void cleanUp() throws Exception {
    List<String> leaked = HostCleanup.release(root);
    Catalog.removeTree(root);
    assertThat(leaked).as("left behind").isEmpty();
  }

  private record Run(int exit, String out, String err) {}

  private static Run probe(String... arguments) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine command =
        new CommandLine(new ThinvolCommand())
            .setOut(new PrintWriter(out, true))
            .setErr(new PrintWriter(err, true));
    String[] argv = new String[arguments.length + 2];
    argv[0] = "driver";
    argv[1] = "probe";
    System.arraycopy(arguments, 0, argv, 2, arguments.length);
    int exit = command.execute(argv);
    return new Run(exit, out.toString(), err.toString());
  }

  @Test
  void aServingDriverIsReady() throws Exception {
    try (DriverProcess driver = DriverProcess.start(root, "node-a")) {
      Run run = probe("--csi-endpoint=unix://" + root.resolve("csi.sock"));
      assertThat(run.exit()).as(run.err()).isZero();
      assertThat(run.out()).isEqualTo("ready\n");
    }
  }

  @Test
  void noDriverIsNotReadyOnceTheTimeoutHasPassed() {
    String endpoint = "unix://" + root.resolve("csi.sock");
    long start = System.nanoTime();
    Run run = probe("--csi-endpoint=" + endpoint, "--timeout=1");
    assertThat(System.nanoTime() - start)
        .as("waited for the timeout")
        .isGreaterThan(1_000_000_000L);
    assertThat(run.exit()).isEqualTo(1);
    assertThat(run.err())
        .isEqualTo(
            "thinvol: not ready after 1 s on "
                + endpoint
                + ": no socket at "
                + root.resolve("csi.sock")
                + "\n");
  }
}
