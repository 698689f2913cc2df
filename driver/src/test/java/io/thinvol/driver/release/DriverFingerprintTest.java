package io.thinvol.driver.release;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The driver image's tag is the driver's version (thinvol.driver.version), and every node rolls
 * when it changes: so it must change when the driver does, and only then. The driver's inputs
 * recorded with the version (driver/driver-inputs.txt) must be the inputs now, unless the version
 * was bumped (then the new inputs are recorded with it).
 */
class DriverFingerprintTest {

  static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
  static final Path RECORD = ROOT.resolve("driver/driver-inputs.txt");
  static final String REGENERATE =
      "./mvnw -q -pl driver -am test -Dtest=DriverFingerprintTest"
          + " -Dsurefire.failIfNoSpecifiedTests=false -Dthinvol.regenerate=true";

  @Test
  void theDriverVersionIsBumpedWhenTheDriversInputsChange() throws Exception {
    String version = System.getProperty("thinvol.driver.version");
    assertThat(version).as("surefire passes the pom's thinvol.driver.version").isNotBlank();
    DriverInputs recorded = DriverInputs.read(RECORD);
    DriverInputs current = DriverInputs.of(ROOT, version);

    Optional<String> unbumped = unbumped(recorded, current);
    assertThat(unbumped).as("a changed driver with an unchanged version").isEmpty();
    if (Boolean.getBoolean("thinvol.regenerate")) {
      Files.writeString(RECORD, current.text());
    }
    assertThat(Files.readString(RECORD))
        .as(
            "driver/driver-inputs.txt records driver version %s and its inputs: record them with %s",
            version, REGENERATE)
        .isEqualTo(current.text());
  }

  /**
   * Why the inputs cannot be recorded: they changed while the version stayed. A bumped version with
   * the same inputs is fine (a rebuild on a patched base image, say).
   */
  static Optional<String> unbumped(DriverInputs recorded, DriverInputs current) {
    List<String> changed = current.changedSince(recorded);
    if (changed.isEmpty() || !current.version().equals(recorded.version())) {
      return Optional.empty();
    }
    return Optional.of(
        "The driver's inputs changed since driver version "
            + recorded.version()
            + " was recorded: "
            + String.join(", ", changed)
            + ". The driver image's tag is its version, so a changed driver needs a new one:"
            + " bump thinvol.driver.version in pom.xml and relatedImages.driver in"
            + " charts/thinvol/values.yaml, record the inputs with "
            + REGENERATE
            + " and regenerate the bundle (GeneratedFilesTest's message names the command)."
            + " See docs/upgrade.md.");
  }

  @Test
  void aChangeToTheDriverNeedsANewVersionAndAnOperatorChangeOrATimestampDoesNot(@TempDir Path root)
      throws Exception {
    copy(root);
    DriverInputs recorded = DriverInputs.of(root, "1.0.0");

    // Build output, timestamps and the operator's sources are not the driver's inputs.
    Path source = root.resolve("driver/src/main/java/io/thinvol/driver/cli/Version.java");
    Files.setLastModifiedTime(source, FileTime.from(Instant.parse("2030-01-01T00:00:00Z")));
    Files.createDirectories(root.resolve("driver/target/classes"));
    Files.writeString(root.resolve("driver/target/classes/new.class"), "build output");
    Files.createDirectories(root.resolve("operator/src/main/java"));
    Files.writeString(root.resolve("operator/src/main/java/Operator.java"), "class Operator {}");
    replace(root.resolve("pom.xml"), "<fabric8.version>", "<fabric8.version>9.");
    assertThat(unbumped(recorded, DriverInputs.of(root, "1.0.0"))).isEmpty();
    assertThat(DriverInputs.of(root, "1.0.0").text()).isEqualTo(recorded.text());

    // A driver source, a proto file, a library the driver ships: each needs a new version.
    Files.writeString(source, "// changed\n", java.nio.file.StandardOpenOption.APPEND);
    Files.writeString(root.resolve("proto/src/main/proto/new.proto"), "syntax = \"proto3\";\n");
    replace(root.resolve("pom.xml"), "<grpc.version>", "<grpc.version>9.");
    DriverInputs changed = DriverInputs.of(root, "1.0.0");
    assertThat(changed.changedSince(recorded))
        .containsExactly(
            "driver/src/main/java/io/thinvol/driver/cli/Version.java",
            "managed:io.grpc:grpc-bom",
            "property:grpc.version",
            "proto/src/main/proto/new.proto");
    assertThat(unbumped(recorded, changed))
        .hasValueSatisfying(
            message ->
                assertThat(message)
                    .contains(
                        "Version.java", "managed:io.grpc:grpc-bom", "since driver version 1.0.0")
                    .contains("bump thinvol.driver.version in pom.xml", REGENERATE));
    assertThat(unbumped(recorded, DriverInputs.of(root, "1.0.1"))).isEmpty();

    // What is recorded reads back as it was written.
    Path record = root.resolve("driver/driver-inputs.txt");
    Files.writeString(record, changed.text());
    assertThat(DriverInputs.read(record)).isEqualTo(changed);
  }

  /** The files the driver's inputs are read from, and an operator pom beside them. */
  private static void copy(Path root) throws Exception {
    List<Path> sources = new java.util.ArrayList<>();
    sources.add(ROOT.resolve("pom.xml"));
    DriverInputs.IMAGE_FILES.forEach(f -> sources.add(ROOT.resolve(f)));
    for (String module : DriverInputs.MODULES) {
      sources.add(ROOT.resolve(module).resolve("pom.xml"));
      try (Stream<Path> files = Files.walk(ROOT.resolve(module).resolve("src/main"))) {
        files.filter(Files::isRegularFile).forEach(sources::add);
      }
    }
    for (Path source : sources) {
      Path target = root.resolve(ROOT.relativize(source));
      Files.createDirectories(target.getParent());
      Files.copy(source, target);
    }
  }

  private static void replace(Path file, String from, String to) throws Exception {
    String text = Files.readString(file);
    assertThat(text).contains(from);
    Files.writeString(file, text.replace(from, to));
  }
}
