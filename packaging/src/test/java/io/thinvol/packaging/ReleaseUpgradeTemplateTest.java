package io.thinvol.packaging;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.operator.model.DriverRelease;
import io.thinvol.operator.model.Images;
import io.thinvol.operator.model.NodeDaemonSetModel;
import io.thinvol.operator.model.Settings;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * An operator upgrade as the bundle and the chart ship it: the operator container of the next
 * release's CSV, or of the chart upgraded to another operator image, with its actual env (the
 * RELATED_IMAGE_* variables and the addons token audience), renders the node DaemonSet's pod
 * template byte for byte as the current release's does; only another driver image changes it.
 */
class ReleaseUpgradeTemplateTest {

  private static final String NEXT = "99.0.0";

  @Test
  void theNextReleasesBundleKeepsTheNodePodTemplate() throws Exception {
    Container current = csvOperator(Release.current());
    Container next = csvOperator(new Release(NEXT));
    assertThat(next.getImage()).isNotEqualTo(current.getImage()).endsWith(":" + NEXT);

    assertThat(nodeTemplate(next)).isEqualTo(nodeTemplate(current));
    assertThat(nodeTemplate(current))
        .contains(DriverRelease.IMAGE)
        .doesNotContain(Release.IMAGE_REPOSITORY + ":");
  }

  @Test
  void aChartUpgradeToAnotherOperatorImageKeepsTheNodePodTemplate() throws Exception {
    Container current = chartOperator(Map.of());
    Container next = chartOperator(Map.of("image.tag", NEXT));
    assertThat(next.getImage()).isEqualTo(Release.IMAGE_REPOSITORY + ":" + NEXT);

    assertThat(nodeTemplate(next)).isEqualTo(nodeTemplate(current));
    assertThat(nodeTemplate(current)).isEqualTo(nodeTemplate(csvOperator(Release.current())));
  }

  @Test
  void anotherDriverImageRollsTheNodes() {
    String driver = DriverRelease.REPOSITORY + ":" + NEXT;
    String rolled = nodeTemplate(chartOperator(Map.of("relatedImages.driver", driver)));

    assertThat(rolled).isNotEqualTo(nodeTemplate(chartOperator(Map.of()))).contains(driver);
  }

  /** The operator container of the CSV this build generates for {@code release}. */
  private static Container csvOperator(Release release) throws Exception {
    Map<String, Object> csv =
        ClusterServiceVersion.of(
            release,
            Crds.in(GeneratedFilesTest.ROOT.resolve("crds")),
            PackagingFiles.almExamples(),
            PackagingFiles.resource("/icon.svg"));
    JsonNode container =
        Serialization.jsonMapper()
            .valueToTree(csv)
            .at("/spec/install/spec/deployments/0/spec/template/spec/containers/0");
    return Serialization.jsonMapper().treeToValue(container, Container.class);
  }

  /** The operator container the chart renders with these values set. */
  private static Container chartOperator(Map<String, Object> values) {
    List<HasMetadata> objects = ChartTest.renderWith(values);
    return objects.stream()
        .filter(Deployment.class::isInstance)
        .map(Deployment.class::cast)
        .findFirst()
        .orElseThrow()
        .getSpec()
        .getTemplate()
        .getSpec()
        .getContainers()
        .get(0);
  }

  /** The node DaemonSet's pod template an operator with this container's image and env renders. */
  private static String nodeTemplate(Container operator) {
    Map<String, String> env = new HashMap<>();
    for (EnvVar variable : operator.getEnv()) {
      if (variable.getValue() != null) {
        env.put(variable.getName(), variable.getValue());
      }
    }
    Settings settings =
        new Settings(Release.OPERATOR_NAMESPACE, operator.getImage(), false, true)
            .withAddonsTokenAudience(env.get("THINVOL_ADDONS_TOKEN_AUDIENCE"))
            .withImages(Images.fromEnvironment(env::get));
    return Serialization.asYaml(
        NodeDaemonSetModel.desired(exampleBackend(), settings, true).getSpec().getTemplate());
  }

  private static StorageBackend exampleBackend() {
    return Serialization.unmarshal(
        new String(
            PackagingFiles.resource("/examples/storagebackend.yaml"), StandardCharsets.UTF_8),
        StorageBackend.class);
  }
}
