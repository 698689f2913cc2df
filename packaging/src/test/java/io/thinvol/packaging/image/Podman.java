package io.thinvol.packaging.image;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The podman command line, with the repository's containers.conf (this VM's settings) instead of
 * the machine's. The images under test are named by the system properties {@code thinvol.image}
 * (the operator's) and {@code thinvol.driverImage}, which packaging/image/build-local.sh builds and
 * .ci/run sets.
 */
final class Podman {

  static final String IMAGE_PROPERTY = "thinvol.image";
  static final String DRIVER_IMAGE_PROPERTY = "thinvol.driverImage";

  /** The repository's root: tests run in the module's directory. */
  static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

  static final Path CONF = ROOT.resolve("packaging/image/containers.conf");

  /** What a podman command printed (stdout and stderr together) and how it exited. */
  record Result(int exit, String output) {
    Result orFail(String what) {
      if (exit != 0) {
        throw new IllegalStateException(what + " failed (exit " + exit + "): " + output);
      }
      return this;
    }
  }

  private Podman() {}

  /** The operator's image. */
  static String image() {
    return System.getProperty(IMAGE_PROPERTY);
  }

  static String driverImage() {
    return System.getProperty(DRIVER_IMAGE_PROPERTY);
  }

  /** What {@code /opt/thinvol} of {@code image} holds, one name a line. */
  static String contents(String image) throws IOException, InterruptedException {
    return shell(image, "cd /opt/thinvol && for f in *; do echo \"$f\"; done");
  }

  /**
   * The modules of the image's Java runtime, one a line: those its jar uses
   * (packaging/image/java-runtime.sh), not a whole JDK's.
   */
  static List<String> javaModules(String image) throws IOException, InterruptedException {
    return shell(image, "java --list-modules")
        .lines()
        .map(line -> line.replaceAll("@.*", ""))
        .toList();
  }

  /** What {@code script} prints in {@code image} (a POSIX shell: the images have no other). */
  private static String shell(String image, String script)
      throws IOException, InterruptedException {
    return run("run", "--rm", "--network=none", "--entrypoint=/bin/sh", image, "-c", script)
        .orFail(script + " in " + image)
        .output();
  }

  /** Whether {@code command} is found on the PATH of {@code image}. */
  static boolean has(String image, String command) throws IOException, InterruptedException {
    return run(
                "run",
                "--rm",
                "--network=none",
                "--entrypoint=/bin/sh",
                image,
                "-c",
                "command -v " + command)
            .exit()
        == 0;
  }

  static Result run(Duration timeout, List<String> args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add("podman");
    command.addAll(args);
    Path log = Files.createTempFile("podman-", ".log");
    try {
      ProcessBuilder builder =
          new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
      builder.environment().put("CONTAINERS_CONF", CONF.toString());
      Process process = builder.start();
      if (!process.waitFor(timeout.toSeconds(), TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor();
        throw new IllegalStateException(
            "podman " + args + " timed out after " + timeout + ": " + Files.readString(log));
      }
      return new Result(process.exitValue(), Files.readString(log, StandardCharsets.UTF_8));
    } finally {
      Files.deleteIfExists(log);
    }
  }

  static Result run(String... args) throws IOException, InterruptedException {
    return run(Duration.ofMinutes(2), List.of(args));
  }

  /** Removes a container, running or not; nothing happens when it does not exist. */
  static void remove(String container) throws IOException, InterruptedException {
    run("rm", "--force", "--time", "10", "--ignore", container);
  }
}
