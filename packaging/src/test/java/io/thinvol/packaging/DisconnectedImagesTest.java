package io.thinvol.packaging;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.thinvol.operator.model.DriverRelease;
import io.thinvol.operator.model.Images;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Disconnected installs: the operator's Deployment names every node image in a RELATED_IMAGE_*
 * variable, the CSV's relatedImages list the same images, the chart sets the same variables from
 * its values, and the release script pins them all to digests (against a fake registry).
 */
class DisconnectedImagesTest {

  private static final String CSV = "bundle/manifests/thinvol.clusterserviceversion.yaml";
  private static final String VALUES = "charts/thinvol/values.yaml";
  private static final Path SCRIPT =
      GeneratedFilesTest.ROOT.resolve("packaging/release/pin-digests.sh");

  @TempDir Path dir;

  @Test
  void theCsvsVariablesAreItsRelatedImagesAndTheOperatorsDefaults() throws IOException {
    JsonNode csv = CrdSchemas.YAML.readTree(generated(CSV));
    checkConsistent(csv);
    JsonNode container = csv.at("/spec/install/spec/deployments/0/spec/template/spec/containers/0");
    Map<String, String> variables = relatedImageVariables(container);
    assertThat(variables)
        .as("the operator reads exactly these (Images.fromEnvironment)")
        .isEqualTo(new TreeMap<>(Images.fromEnvironment(variables::get).byVariable()));
    assertThat(variables).isEqualTo(new TreeMap<>(Images.compiled().byVariable()));
    assertThat(variables.get("RELATED_IMAGE_DRIVER"))
        .as("the driver's own image, of the driver's version")
        .isEqualTo(DriverRelease.IMAGE)
        .isNotEqualTo(Release.current().image());
  }

  @Test
  void theChartSetsTheVariablesFromItsValues() {
    String mirror = "mirror.example:5000/csi-provisioner@sha256:" + "c".repeat(64);
    Container rendered =
        only(ChartTest.renderWith(Map.of("relatedImages.provisioner", mirror)), Deployment.class)
            .getSpec()
            .getTemplate()
            .getSpec()
            .getContainers()
            .get(0);
    Map<String, String> variables = new TreeMap<>();
    for (EnvVar env : rendered.getEnv()) {
      if (env.getName().startsWith(Images.VARIABLE_PREFIX)) {
        variables.put(env.getName(), env.getValue());
      }
    }
    Map<String, String> expected = new TreeMap<>(Images.compiled().byVariable());
    expected.put("RELATED_IMAGE_PROVISIONER", mirror);
    assertThat(variables).isEqualTo(expected);
  }

  @Test
  void theReleaseScriptPinsEveryImageToItsDigest() throws Exception {
    Path csvFile = dir.resolve("csv.yaml");
    Path valuesFile = dir.resolve("values.yaml");
    Files.writeString(csvFile, generated(CSV));
    Files.copy(GeneratedFilesTest.ROOT.resolve(VALUES), valuesFile);
    JsonNode before = CrdSchemas.YAML.readTree(csvFile.toFile());

    Process script = run(fakeRegistry(false), csvFile, valuesFile);
    assertThat(script.exitValue()).as(output(script)).isZero();

    JsonNode after = CrdSchemas.YAML.readTree(csvFile.toFile());
    checkConsistent(after);
    List<String> relatedBefore = relatedImages(before);
    List<String> relatedAfter = relatedImages(after);
    assertThat(relatedAfter).hasSameSizeAs(relatedBefore);
    for (int i = 0; i < relatedBefore.size(); i++) {
      assertThat(relatedAfter.get(i)).isEqualTo(pinned(relatedBefore.get(i)));
    }
    assertThat(after.at("/metadata/annotations/containerImage").asText())
        .isEqualTo(pinned(Release.current().image()));
    JsonNode values = CrdSchemas.YAML.readTree(valuesFile.toFile());
    values
        .path("relatedImages")
        .fields()
        .forEachRemaining(
            e -> {
              if (!e.getValue().asText().isEmpty()) {
                assertThat(e.getValue().asText()).as(e.getKey()).contains("@sha256:");
              }
            });
    assertThat(values.at("/relatedImages/provisioner").asText())
        .isEqualTo(pinned(Images.PROVISIONER));
    assertThat(values.at("/relatedImages/driver").asText()).isEqualTo(pinned(DriverRelease.IMAGE));
    assertThat(relatedAfter).contains(pinned(DriverRelease.IMAGE));
    assertThat(Files.getPosixFilePermissions(csvFile))
        .isEqualTo(PosixFilePermissions.fromString("rw-r--r--"));
  }

  @Test
  void anImageTheRegistryCannotResolveChangesNoFile() throws Exception {
    Path csvFile = dir.resolve("csv.yaml");
    Files.writeString(csvFile, generated(CSV));

    Process script = run(fakeRegistry(true), csvFile);

    assertThat(script.exitValue()).isNotZero();
    assertThat(output(script)).contains("cannot resolve", "no file changed");
    assertThat(Files.readString(csvFile)).isEqualTo(generated(CSV));
  }

  /** Every RELATED_IMAGE_ variable's image is in relatedImages, and relatedImages has no other. */
  private static void checkConsistent(JsonNode csv) {
    JsonNode container = csv.at("/spec/install/spec/deployments/0/spec/template/spec/containers/0");
    Set<String> fromDeployment = new HashSet<>(relatedImageVariables(container).values());
    fromDeployment.add(container.path("image").asText());
    assertThat(new HashSet<>(relatedImages(csv))).isEqualTo(fromDeployment);
    assertThat(relatedImages(csv)).doesNotHaveDuplicates();
  }

  private static Map<String, String> relatedImageVariables(JsonNode container) {
    Map<String, String> variables = new TreeMap<>();
    for (JsonNode env : container.path("env")) {
      if (env.path("name").asText().startsWith(Images.VARIABLE_PREFIX)) {
        variables.put(env.path("name").asText(), env.path("value").asText());
      }
    }
    return variables;
  }

  private static List<String> relatedImages(JsonNode csv) {
    List<String> images = new ArrayList<>();
    csv.at("/spec/relatedImages").forEach(i -> images.add(i.path("image").asText()));
    return images;
  }

  private static Map<String, String> generated;

  /** Generated once: it reads and checks every CRD. */
  private static synchronized String generated(String file) {
    if (generated == null) {
      generated = PackagingFiles.generate(GeneratedFilesTest.ROOT);
    }
    return generated.get(file);
  }

  /** What the fake registry answers for an image: the SHA-256 of its name. */
  private static String pinned(String image) throws NoSuchAlgorithmException {
    byte[] hash =
        MessageDigest.getInstance("SHA-256").digest(image.getBytes(StandardCharsets.UTF_8));
    return image.substring(0, image.lastIndexOf(':')) + "@sha256:" + HexFormat.of().formatHex(hash);
  }

  /** A resolver standing in for skopeo; {@code failing} makes it fail for the snapshotter. */
  private Path fakeRegistry(boolean failing) throws IOException {
    Path resolver = dir.resolve("fake-skopeo.sh");
    Files.writeString(
        resolver,
        "#!/usr/bin/env bash\n"
            + (failing ? "[[ $1 == *csi-snapshotter* ]] && exit 1\n" : "")
            + "printf 'sha256:%s\\n' \"$(printf '%s' \"$1\" | sha256sum | cut -c1-64)\"\n");
    Files.setPosixFilePermissions(resolver, PosixFilePermissions.fromString("rwxr-xr-x"));
    return resolver;
  }

  private Process run(Path resolver, Path... files) throws Exception {
    List<String> command = new ArrayList<>(List.of("bash", SCRIPT.toString()));
    for (Path file : files) {
      Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
      command.add(file.toString());
    }
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
    builder.environment().put("PIN_DIGESTS_RESOLVER", resolver.toString());
    Process process = builder.start();
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("the script ends").isTrue();
    return process;
  }

  private static String output(Process process) throws IOException {
    return new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
  }

  private static <T extends HasMetadata> T only(List<HasMetadata> objects, Class<T> kind) {
    return objects.stream().filter(kind::isInstance).map(kind::cast).findFirst().orElseThrow();
  }
}
