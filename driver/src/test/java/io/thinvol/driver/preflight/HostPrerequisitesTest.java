package io.thinvol.driver.preflight;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A machine without xfsprogs, as a new user's: the preflight stops at its first step and the
 * build's check fails before any test, both naming the package to install. The tools are hidden
 * with a PATH that lacks them, not uninstalled.
 */
class HostPrerequisitesTest {

  @Test
  void everyToolTheDriverRunsIsOnThisHost() {
    assertThat(HostPrerequisites.check(System.getenv("PATH")))
        .isEqualTo("all 9 found (util-linux, e2fsprogs, xfsprogs, coreutils)");
  }

  @Test
  void thePreflightStopsAtItsFirstStepNamingThePackage(@TempDir Path bin) throws Exception {
    String path = pathWithout("xfsprogs", bin);
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    int exit;
    try (Stream<Path> before = Files.list(Path.of("/var/tmp"));
        PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
      long workDirs = before.filter(HostPrerequisitesTest::isPreflightWork).count();
      exit = new Preflight(out, path).run(null, "node", "test");
      try (Stream<Path> after = Files.list(Path.of("/var/tmp"))) {
        assertThat(after.filter(HostPrerequisitesTest::isPreflightWork).count())
            .isEqualTo(workDirs);
      }
    }
    String report = bytes.toString(StandardCharsets.UTF_8);
    assertThat(exit).as(report).isEqualTo(1);
    assertThat(report)
        .contains(
            " 1. FAIL host tools are installed",
            "ms  missing mkfs.xfs, xfs_growfs;"
                + " on Debian or Ubuntu install them with: apt-get install -y xfsprogs\n",
            "preflight FAILED: 0 steps passed, 1 failed, 0 skipped")
        .doesNotContain("create a 1 GiB")
        .as("a plain sentence, no Java class")
        .doesNotContain("Exception");
  }

  @Test
  void theBuildsCheckFailsWithOneLineNamingThePackage(@TempDir Path bin) throws Exception {
    Path source = Path.of("src/main/java/io/thinvol/driver/preflight/HostPrerequisites.java");
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    ProcessBuilder builder =
        new ProcessBuilder(java.toString(), source.toAbsolutePath().toString())
            .redirectErrorStream(true);
    builder.environment().put("PATH", pathWithout("e2fsprogs", bin));
    Process process = builder.start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(process.exitValue()).as(output).isEqualTo(1);
    assertThat(output)
        .isEqualTo(
            "thinvol's tests run the driver's host tools, missing mkfs.ext4, e2fsck, resize2fs;"
                + " on Debian or Ubuntu install them with: apt-get install -y e2fsprogs\n");
  }

  /** A directory with every tool on this host's PATH except those of {@code pkg}. */
  private static String pathWithout(String pkg, Path bin) throws Exception {
    List<String> hostPath = List.of(System.getenv("PATH").split(File.pathSeparator));
    for (HostPrerequisites.Tool tool : HostPrerequisites.TOOLS) {
      if (tool.debianPackage().equals(pkg)) {
        continue;
      }
      Path real =
          hostPath.stream()
              .map(dir -> Path.of(dir, tool.command()))
              .filter(Files::isExecutable)
              .findFirst()
              .orElseThrow();
      // A script rather than a link: JUnit warns about links out of a temporary directory.
      Path wrapper = bin.resolve(tool.command());
      Files.writeString(wrapper, "#!/bin/sh\nexec " + real + " \"$@\"\n");
      Files.setPosixFilePermissions(wrapper, PosixFilePermissions.fromString("rwxr-xr-x"));
    }
    return bin.toString();
  }

  private static boolean isPreflightWork(Path p) {
    return p.getFileName().toString().startsWith("thinvol-preflight-");
  }
}
