package io.thinvol.packaging;

import static org.assertj.core.api.Assertions.assertThat;

import io.thinvol.operator.model.DriverRelease;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The two container images' contents without a container engine: each Containerfile copies its
 * module's jar, the Java runtime linked for it and its entry point, the driver's installs the host
 * tools it runs, the operator's none; each entry point starts its program from the jar its image
 * copies. The built images themselves are run by the tests in {@code image/}.
 */
class ImageTest {

  static final Path ROOT = GeneratedFilesTest.ROOT;

  @Test
  void theOperatorsContainerfileCopiesOnlyTheOperator() throws IOException {
    List<String> lines = instructions("Containerfile");
    assertThat(lines).noneMatch(l -> l.contains("apt-get") || l.contains("driver"));
    assertThat(lines)
        .contains(
            "RUN java-runtime.sh /jars/thinvol-operator.jar /runtime",
            "COPY --from=runtime /runtime /opt/java",
            "COPY --from=jars /jars/thinvol-operator.jar /opt/thinvol/",
            "COPY packaging/image/thinvol /opt/thinvol/bin/thinvol",
            "ENTRYPOINT [\"/opt/thinvol/bin/thinvol\"]",
            "CMD [\"operator\"]");
    assertThat(lines).anyMatch(l -> l.startsWith("USER ") && !l.startsWith("USER 0"));
    assertThat(jar("operator")).exists();
  }

  @Test
  void theDriversContainerfileCopiesTheDriverAndTheToolsItRuns() throws IOException {
    List<String> lines = instructions("driver.Containerfile");
    assertThat(lines).anyMatch(l -> l.contains("sh /tmp/host-tools.sh"));
    assertThat(Files.readAllLines(ROOT.resolve("packaging/image/host-tools.sh")))
        .anyMatch(
            l ->
                l.contains("apt-get install")
                    && l.contains("util-linux")
                    && l.contains("e2fsprogs")
                    && l.contains("coreutils")
                    && l.contains("mount"))
        .anyMatch(l -> l.contains("apt-get download -qq xfsprogs"));
    assertThat(lines)
        .contains(
            "RUN java-runtime.sh /jars/thinvol-driver.jar /runtime",
            "COPY --from=runtime /runtime /opt/java",
            "COPY --from=jars /jars/thinvol-driver.jar /opt/thinvol/",
            "COPY packaging/image/thinvol-driver /opt/thinvol/bin/thinvol",
            "    sh /tmp/class-data.sh /opt/thinvol/bin/thinvol /opt/thinvol",
            "ENTRYPOINT [\"/opt/thinvol/bin/thinvol\"]")
        .noneMatch(l -> l.contains("operator"));
    assertThat(Files.isExecutable(ROOT.resolve("packaging/image/thinvol-driver"))).isTrue();
    assertThat(jar("driver")).exists();
  }

  @Test
  void theEntryPointsStartTheirPrograms(@TempDir Path home) throws Exception {
    Files.copy(jar("driver"), home.resolve("thinvol-driver.jar"));
    Files.copy(jar("operator"), home.resolve("thinvol-operator.jar"));

    Run driver = run("thinvol-driver", home, "--version");
    assertThat(driver.exit()).isZero();
    assertThat(driver.output())
        .as("the driver reports its own version, its image's tag")
        .startsWith("thinvol " + DriverRelease.VERSION);

    Run operator = run("thinvol", home, "operator");
    assertThat(operator.exit()).as(operator.output()).isEqualTo(2);
    assertThat(operator.output()).contains("POD_NAMESPACE must be set").doesNotContain("Exception");

    Run notHere = run("thinvol", home, "driver", "preflight");
    assertThat(notHere.exit()).isEqualTo(2);
    assertThat(notHere.output()).contains("thinvol-driver image");
  }

  /**
   * The class data archive the driver's image is built with (docs/image.md): class-data.sh makes it
   * in a home by starting the driver there, and the entry point starts the driver from it.
   */
  @Test
  void theDriverStartsFromTheClassDataArchiveOfItsHome(@TempDir Path home) throws Exception {
    Files.copy(jar("driver"), home.resolve("thinvol-driver.jar"));
    Path entryPoint = home.resolve("thinvol");
    Files.copy(ROOT.resolve("packaging/image/thinvol-driver"), entryPoint);
    assertThat(entryPoint.toFile().setExecutable(true)).isTrue();
    Run before = run("thinvol-driver", home, Map.of("JAVA_OPTS", "-Xlog:class+load"), "--version");
    assertThat(before.output()).contains("ThinvolCommand source: file:");

    ProcessBuilder classData =
        new ProcessBuilder(
                "sh",
                ROOT.resolve("packaging/image/class-data.sh").toString(),
                entryPoint.toString(),
                home.toString())
            .redirectErrorStream(true);
    try (ServerSocket free = new ServerSocket(0)) {
      classData.environment().put("CLASS_DATA_HTTP_PORT", String.valueOf(free.getLocalPort()));
    }
    Process process = classData.start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(120, TimeUnit.SECONDS)).isTrue();
    assertThat(process.exitValue()).as(output).isZero();
    assertThat(home.resolve("thinvol-driver.jsa")).isNotEmptyFile();

    Run after = run("thinvol-driver", home, Map.of("JAVA_OPTS", "-Xlog:class+load"), "--version");
    assertThat(after.exit()).as(after.output()).isZero();
    assertThat(after.output())
        .contains("ThinvolCommand source: shared objects file (top)")
        .contains("thinvol " + DriverRelease.VERSION);
  }

  /** A Containerfile's lines, comments left out. */
  private static List<String> instructions(String containerfile) throws IOException {
    return Files.readAllLines(ROOT.resolve(containerfile)).stream()
        .filter(l -> !l.startsWith("#"))
        .toList();
  }

  /**
   * The driver runs on every node, so its memory counts N times (docs/benchmarks.md, "Driver
   * memory"): the JVM takes the entry point's flags for it (an unknown flag would stop it), and the
   * process gets few malloc arenas.
   */
  @Test
  void theDriverStartsWithItsMemoryFlagsAndFewMallocArenas(@TempDir Path home) throws Exception {
    Files.copy(jar("driver"), home.resolve("thinvol-driver.jar"));
    Run flags =
        run("thinvol-driver", home, Map.of("JAVA_OPTS", "-XX:+PrintCommandLineFlags"), "--version");
    assertThat(flags.exit()).as(flags.output()).isZero();
    assertThat(flags.output())
        .contains(
            "-XX:+UseSerialGC",
            "-XX:InitialHeapSize=8388608",
            "-XX:MaxHeapSize=67108864",
            "-XX:TrimNativeHeapInterval=5000",
            "-XX:TieredStopAtLevel=1");

    // What the process is given, seen by a stand-in for java placed first on the PATH.
    Path bin = Files.createDirectories(home.resolve("bin"));
    Path java = bin.resolve("java");
    Files.writeString(java, "#!/bin/sh\necho \"MALLOC_ARENA_MAX=$MALLOC_ARENA_MAX $*\"\n");
    assertThat(java.toFile().setExecutable(true)).isTrue();
    String path = bin + ":" + System.getenv("PATH");
    Run driver = run("thinvol-driver", home, Map.of("PATH", path), "driver", "--version");
    assertThat(driver.output()).startsWith("MALLOC_ARENA_MAX=2 ").contains("thinvol-driver.jar");
    Run chosen =
        run(
            "thinvol-driver",
            home,
            Map.of("PATH", path, "MALLOC_ARENA_MAX", "4"),
            "driver",
            "--version");
    assertThat(chosen.output())
        .as("a value set on the container wins")
        .startsWith("MALLOC_ARENA_MAX=4 ");
  }

  private record Run(int exit, String output) {}

  private static Run run(String entryPoint, Path home, String... args) throws Exception {
    return run(entryPoint, home, Map.of(), args);
  }

  private static Run run(
      String entryPoint, Path home, Map<String, String> environment, String... args)
      throws Exception {
    List<String> command = new ArrayList<>();
    command.add(ROOT.resolve("packaging/image").resolve(entryPoint).toString());
    command.addAll(List.of(args));
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
    builder.environment().put("THINVOL_HOME", home.toString());
    builder.environment().remove("POD_NAMESPACE");
    builder.environment().remove("MALLOC_ARENA_MAX");
    builder.environment().putAll(environment);
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
