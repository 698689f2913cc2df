package io.thinvol.operator.model;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.thinvol.addons.call.ProjectedToken;
import io.thinvol.api.v1alpha1.StorageBackend;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The node pods' template changes only with the driver (DESIGN.md: an operator-only release leaves
 * every node's DaemonSet byte-identical, docs/upgrade.md): the template this operator renders for a
 * backend, with the driver image it compiles in and stand-ins for the sidecars' images (a sidecar's
 * new image rolls the nodes by itself), is recorded with the driver's version in {@code
 * operator/node-pod-template.yaml}. A change to it under the same driver version would restart the
 * driver on every node in an operator release: it needs a new driver version.
 */
class NodeTemplateRecordTest {

  static final Path RECORD = Path.of("node-pod-template.yaml").toAbsolutePath();
  static final String REGENERATE =
      "./mvnw -q -pl operator -am test -Dtest=NodeTemplateRecordTest"
          + " -Dsurefire.failIfNoSpecifiedTests=false -Dthinvol.regenerate=true";
  private static final String HEADER = "# the node pods' template of driver version ";

  @Test
  void theNodePodsTemplateChangesOnlyWithTheDriversVersion() throws Exception {
    String current = HEADER + DriverRelease.VERSION + "\n" + template();
    String recorded = Files.exists(RECORD) ? Files.readString(RECORD) : "";
    String recordedVersion = recorded.lines().findFirst().orElse("").replace(HEADER, "");
    if (!recorded.equals(current)) {
      assertThat(recordedVersion)
          .as(
              "The node pods' template changed while the driver's version stayed %s: an operator"
                  + " release with this change would restart the driver on every node. Bump"
                  + " thinvol.driver.version (docs/upgrade.md) and record the template with %s",
              recordedVersion, REGENERATE)
          .isNotEqualTo(DriverRelease.VERSION);
      if (Boolean.getBoolean("thinvol.regenerate")) {
        Files.writeString(RECORD, current);
      }
    }
    assertThat(Files.readString(RECORD))
        .as(
            "%s records driver version %s's template: record it with %s",
            RECORD, DriverRelease.VERSION, REGENERATE)
        .isEqualTo(current);
  }

  private static String template() throws Exception {
    StorageBackend backend =
        Serialization.unmarshal(
            """
            apiVersion: thinvol.io/v1alpha1
            kind: StorageBackend
            metadata:
              name: local
            spec:
              sparseFile:
                dataDir: /var/lib/thinvol/local
              storageClasses:
              - name: thinvol-local
            """,
            StorageBackend.class);
    Images images =
        Images.fromEnvironment(
            variable ->
                variable.equals(Images.VARIABLE_PREFIX + "DRIVER")
                    ? null
                    : "sidecar.example/" + variable.toLowerCase());
    Settings settings =
        new Settings("thinvol-system", "quay.io/thinvol/thinvol:any", false, true)
            .withAddonsTokenAudience(ProjectedToken.DEFAULT_AUDIENCE)
            .withImages(images);
    Object template = NodeDaemonSetModel.desired(backend, settings, true).getSpec().getTemplate();
    // Keys sorted, as the API server stores objects: the model's maps (Map.of) iterate in an
    // order that changes from one JVM to the next.
    ObjectMapper yaml =
        new ObjectMapper(new YAMLFactory())
            .configure(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS, true);
    return yaml.writeValueAsString(Serialization.jsonMapper().convertValue(template, Object.class));
  }
}
