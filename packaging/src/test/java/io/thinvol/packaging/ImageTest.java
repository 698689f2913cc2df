package io.thinvol.packaging;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The container image's contents without a container engine: the Containerfile copies what the
 * build makes, installs the driver's host tools, and its entry point starts both programs from the
 * jars it copies. The built image itself is run by the tests in {@code image/}.
 */
class ImageTest {

  static final Path ROOT = GeneratedFilesTest.ROOT;

  @Test
  void theContainerfileCopiesWhatTheBuildMakesAndTheToolsTheDriverRuns() throws IOException {
    List<String> lines = Files.readAllLines(ROOT.resolve("Containerfile"));
    assertThat(lines)
        .anyMatch(
            l ->
                l.contains("apt-get install")
                    && l.contains("util-linux")
                    && l.contains("e2fsprogs")
                    && l.contains("xfsprogs")
                    && l.contains("mount"));
    assertThat(lines).contains("ENTRYPOINT [\"/opt/thinvol/bin/thinvol\"]", "CMD [\"operator\"]");
    assertThat(lines).anyMatch(l -> l.startsWith("USER ") && !l.startsWith("USER 0"));
    assertThat(lines).contains("COPY packaging/image/thinvol /opt/thinvol/bin/thinvol");
    assertThat(Files.isExecutable(ROOT.resolve("packaging/image/thinvol"))).isTrue();
    assertThat(jar("driver")).exists();
    assertThat(jar("operator")).exists();
  }

  @Test
  void theEntryPointStartsTheDriverAndTheOperator(@TempDir Path home) throws Exception {
    Files.copy(jar("driver"), home.resolve("thinvol-driver.jar"));
    Files.copy(jar("operator"), home.resolve("thinvol-operator.jar"));

    Run driver = run(home, "--version");
    assertThat(driver.exit()).isZero();
    assertThat(driver.output()).startsWith("thinvol " + Release.current().version());

    Run operator = run(home, "operator");
    assertThat(operator.exit()).as(operator.output()).isEqualTo(2);
    assertThat(operator.output()).contains("POD_NAMESPACE must be set").doesNotContain("Exception");
  }

  private record Run(int exit, String output) {}

  private static Run run(Path home, String... args) throws Exception {
    List<String> command = new ArrayList<>();
    command.add(ROOT.resolve("packaging/image/thinvol").toString());
    command.addAll(List.of(args));
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
    builder.environment().put("THINVOL_HOME", home.toString());
    builder.environment().remove("POD_NAMESPACE");
    Process process = builder.start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
    return new Run(process.exitValue(), output);
  }

  /** The shaded jar a module's build made, as the Containerfile's COPY picks it. */
  static Path jar(String module) throws IOException {
    try (Stream<Path> files = Files.list(ROOT.resolve(module).resolve("target"))) {
      return files
          .filter(f -> f.getFileName().toString().matches("thinvol-" + module + "-.*-all\\.jar"))
          .findFirst()
          .orElseThrow(() -> new AssertionError(module + "'s -all.jar is not built"));
    }
  }
}
