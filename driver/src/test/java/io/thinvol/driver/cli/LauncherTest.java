package io.thinvol.driver.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The checkout's {@code ./thinvol} launcher, in a copy of a checkout whose {@code mvnw} and {@code
 * java} only record how they were called. Its first run builds only what it runs (proto and driver,
 * packaged, nothing installed into ~/.m2): the other modules' compilers run JOSDK's annotation
 * processor, which printed slf4j's three "No SLF4J providers were found" lines before the preflight
 * started (issue 29).
 */
class LauncherTest {

  private static final Path LAUNCHER = Path.of("../thinvol");

  @Test
  void theFirstRunBuildsTheDriverOnlyAndTheNextRunsBuildNothing(@TempDir Path checkout)
      throws Exception {
    Files.copy(LAUNCHER, checkout.resolve("thinvol"));
    executable(checkout.resolve("thinvol"));
    for (String dir : new String[] {"proto/src", "driver/src/main", "bin"}) {
      Files.createDirectories(checkout.resolve(dir));
    }
    Files.writeString(checkout.resolve("pom.xml"), "<project/>");
    Files.writeString(checkout.resolve("driver/pom.xml"), "<project/>");
    script(
        checkout.resolve("mvnw"),
        "echo \"$@\" >> \"$(dirname \"$0\")/mvnw-calls\"\n"
            + "mkdir -p driver/target && touch driver/target/thinvol-driver-1-all.jar\n");
    script(checkout.resolve("bin/java"), "echo \"java $*\"\n");

    Result first = run(checkout);
    assertThat(first.stderr()).as("the build's output").isEmpty();
    assertThat(first.stdout())
        .contains(
            "-jar "
                + checkout.resolve("driver/target/thinvol-driver-1-all.jar")
                + " driver preflight");
    assertThat(Files.readString(checkout.resolve("mvnw-calls")))
        .isEqualTo("-B -q -DskipTests -pl driver -am package\n");

    run(checkout);
    assertThat(Files.readAllLines(checkout.resolve("mvnw-calls"))).as("built once").hasSize(1);
  }

  private record Result(String stdout, String stderr) {}

  private static Result run(Path checkout) throws Exception {
    ProcessBuilder builder =
        new ProcessBuilder(checkout.resolve("thinvol").toString(), "driver", "preflight")
            .directory(checkout.toFile());
    builder.environment().put("PATH", checkout.resolve("bin") + ":" + System.getenv("PATH"));
    Process process = builder.start();
    String stdout = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    String stderr = new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(process.exitValue()).as(stderr).isZero();
    return new Result(stdout, stderr);
  }

  private static void script(Path file, String body) throws Exception {
    Files.writeString(file, "#!/bin/sh\n" + body);
    executable(file);
  }

  private static void executable(Path file) throws Exception {
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
  }
}
