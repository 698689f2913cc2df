package io.thinvol.packaging;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.marcnuri.helm.Helm;
import com.marcnuri.helm.LintResult;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.thinvol.operator.model.DriverRelease;
import io.thinvol.operator.model.Names;
import io.thinvol.operator.model.OperatorRbac;
import io.thinvol.testing.SchemaValidator;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The chart lints and renders with Helm's own engine (helm-java), for default values and OpenShift.
 */
class ChartTest {

  static final Path CHART = GeneratedFilesTest.ROOT.resolve("charts/thinvol");

  @Test
  void theChartLintsStrictly() {
    LintResult lint = new Helm(CHART).lint().strict().call();
    assertThat(lint.isFailed()).as("helm lint --strict: %s", lint.getMessages()).isFalse();
  }

  @Test
  void theChartIsOfThisReleaseAndItsImage() throws IOException {
    JsonNode chart = CrdSchemas.YAML.readTree(CHART.resolve("Chart.yaml").toFile());
    assertThat(chart.path("apiVersion").asText()).isEqualTo("v2");
    assertThat(chart.path("version").asText()).isEqualTo(Release.current().version());
    assertThat(chart.path("appVersion").asText()).isEqualTo(Release.current().version());
    assertThat(chart.path("kubeVersion").asText())
        .isEqualTo(">=" + Release.MIN_KUBE_VERSION + "-0");
    JsonNode values = CrdSchemas.YAML.readTree(CHART.resolve("values.yaml").toFile());
    assertThat(values.at("/image/repository").asText()).isEqualTo(Release.IMAGE_REPOSITORY);
    assertThat(values.at("/relatedImages/driver").asText())
        .as("the driver image of thinvol.driver.version: set it in values.yaml when bumping that")
        .isEqualTo(DriverRelease.IMAGE);
    assertThat(values.at("/sampleStorageBackend/enabled").asBoolean(true)).isFalse();
    assertThat(values.at("/openshift/enabled").asText())
        .as("detected from the API versions the cluster serves")
        .isEqualTo("auto");
  }

  @Test
  void defaultValuesRenderTheOperatorWithTheBundlesRbac() {
    List<HasMetadata> objects = render(false, false);
    assertThat(objects)
        .extracting(HasMetadata::getKind)
        .containsExactlyInAnyOrder(
            "ServiceAccount",
            "ClusterRole",
            "ClusterRole",
            "ClusterRole",
            "ClusterRoleBinding",
            "Role",
            "RoleBinding",
            "Deployment");
    assertThat(rules(objects, ClusterRole.class))
        .isEqualTo(Set.copyOf(OperatorRbac.clusterRules(false)));
    assertThat(rules(objects, Role.class)).isEqualTo(Set.copyOf(OperatorRbac.namespaceRules()));
    Deployment deployment = only(objects, Deployment.class);
    assertThat(deployment.getMetadata().getNamespace()).isEqualTo("thinvol-system");
    assertThat(deployment.getSpec().getTemplate().getSpec().getServiceAccountName())
        .isEqualTo(OperatorRbac.SERVICE_ACCOUNT);
    assertThat(deployment.getSpec().getTemplate().getMetadata().getLabels())
        .as("the node pods' NetworkPolicy admits the operator's pods by these")
        .containsAllEntriesOf(Names.operatorPodLabels());
    Container container = deployment.getSpec().getTemplate().getSpec().getContainers().get(0);
    assertThat(container.getImagePullPolicy()).isEqualTo("IfNotPresent");
    container.setImagePullPolicy(null);
    assertThat(container).isEqualTo(OperatorDeployment.container(Release.current().image()));
    assertThat(deployment.getSpec().getTemplate().getSpec().getSecurityContext())
        .isEqualTo(OperatorDeployment.spec("x").getTemplate().getSpec().getSecurityContext());
    assertThat(deployment.getSpec().getTemplate().getSpec().getVolumes())
        .isEqualTo(OperatorDeployment.spec("x").getTemplate().getSpec().getVolumes());
    assertThat(deployment.getSpec().getReplicas()).isEqualTo(OperatorDeployment.REPLICAS);
    assertThat(deployment.getSpec().getTemplate().getSpec().getAffinity())
        .isEqualTo(OperatorDeployment.spreadOverNodes());
  }

  @Test
  void onOpenShiftItsClusterRoleEqualsTheBundles() {
    List<HasMetadata> objects = render(true, false);
    JsonNode csv = BundleValidationTest.csv != null ? BundleValidationTest.csv : bundleCsv();
    Set<PolicyRule> bundle = new HashSet<>();
    csv.at("/spec/install/spec/clusterPermissions/0/rules")
        .forEach(r -> bundle.add(Serialization.unmarshal(r.toString(), PolicyRule.class)));
    Set<PolicyRule> namespaced = new HashSet<>();
    csv.at("/spec/install/spec/permissions/0/rules")
        .forEach(r -> namespaced.add(Serialization.unmarshal(r.toString(), PolicyRule.class)));
    assertThat(rules(objects, ClusterRole.class)).isEqualTo(bundle);
    assertThat(rules(objects, Role.class)).isEqualTo(namespaced);
  }

  @Test
  void theSampleStorageBackendIsValid() {
    List<HasMetadata> objects = render(false, true);
    HasMetadata backend =
        objects.stream()
            .filter(o -> o.getKind().equals("StorageBackend"))
            .findFirst()
            .orElseThrow();
    JsonNode object =
        CrdSchemas.YAML.valueToTree(
            Serialization.unmarshal(Serialization.asJson(backend), Map.class));
    CrdSchemas schemas = new CrdSchemas(GeneratedFilesTest.ROOT.resolve("crds"));
    assertThat(SchemaValidator.validate(schemas.of(object).orElseThrow(), object)).isEmpty();
  }

  @Test
  void openShiftIsDetectedUnlessSet() {
    // helm template without --api-versions sees no security.openshift.io/v1: auto is off.
    assertThat(rules(render(null, false), ClusterRole.class))
        .isEqualTo(Set.copyOf(OperatorRbac.clusterRules(false)));
    assertThat(rules(render(true, false), ClusterRole.class))
        .isEqualTo(Set.copyOf(OperatorRbac.clusterRules(true)));
    assertThat(rules(render(false, false), ClusterRole.class))
        .isEqualTo(Set.copyOf(OperatorRbac.clusterRules(false)));
  }

  /** {@code openShift} null: the chart's default (auto). */
  static List<HasMetadata> render(Boolean openShift, boolean sample) {
    Map<String, Object> values = new HashMap<>();
    values.put("sampleStorageBackend.enabled", sample);
    if (openShift != null) {
      values.put("openshift.enabled", openShift);
    }
    return renderWith(values);
  }

  static List<HasMetadata> renderWith(Map<String, Object> values) {
    var template =
        new Helm(CHART)
            .template()
            .withName("thinvol")
            .withNamespace("thinvol-system")
            .withKubeVersion("1.31.0");
    values.forEach(template::set);
    String yaml = template.call();
    return CrdSchemas.documents(yaml).stream()
        .map(d -> (HasMetadata) Serialization.unmarshal(d.toString()))
        .toList();
  }

  private static Set<PolicyRule> rules(
      List<HasMetadata> objects, Class<? extends HasMetadata> kind) {
    HasMetadata role = only(objects, kind);
    List<PolicyRule> rules =
        role instanceof ClusterRole c ? c.getRules() : ((Role) role).getRules();
    Set<PolicyRule> set = new HashSet<>(rules);
    assertThat(set).as("no rule twice").hasSameSizeAs(rules);
    return set;
  }

  @Test
  void theNamespacedKindsAggregateIntoEditAndView() {
    List<ClusterRole> roles =
        render(null, false).stream()
            .filter(ClusterRole.class::isInstance)
            .map(ClusterRole.class::cast)
            .filter(r -> r.getMetadata().getName().startsWith("thinvol-reclaimspace-"))
            .toList();
    ClusterRole edit =
        roles.stream()
            .filter(r -> r.getMetadata().getName().endsWith("-edit"))
            .findFirst()
            .orElseThrow();
    ClusterRole view =
        roles.stream()
            .filter(r -> r.getMetadata().getName().endsWith("-view"))
            .findFirst()
            .orElseThrow();
    assertThat(edit.getMetadata().getLabels())
        .containsEntry("rbac.authorization.k8s.io/aggregate-to-admin", "true")
        .containsEntry("rbac.authorization.k8s.io/aggregate-to-edit", "true");
    assertThat(view.getMetadata().getLabels())
        .containsEntry("rbac.authorization.k8s.io/aggregate-to-view", "true");
    assertThat(edit.getRules())
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.getResources())
                  .containsExactlyInAnyOrder(
                      "reclaimspacejobs",
                      "reclaimspacecronjobs",
                      "volumemoves",
                      "volumereplications");
              assertThat(r.getVerbs()).contains("create", "delete").doesNotContain("*");
            });
    assertThat(view.getRules())
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.getResources()).doesNotContain("storagebackends");
              assertThat(r.getVerbs()).containsExactlyInAnyOrder("get", "list", "watch");
            });
  }

  /** The operator's own object of a kind (the chart's aggregated roles aside). */
  private static <T extends HasMetadata> T only(List<HasMetadata> objects, Class<T> kind) {
    List<T> found =
        objects.stream()
            .filter(kind::isInstance)
            .map(kind::cast)
            .filter(o -> !o.getMetadata().getName().startsWith("thinvol-reclaimspace-"))
            .toList();
    assertThat(found).as(kind.getSimpleName()).hasSize(1);
    return found.get(0);
  }

  private static JsonNode bundleCsv() {
    try {
      return CrdSchemas.documents(
              Files.readString(
                  BundleValidationTest.BUNDLE.resolve(
                      "manifests/thinvol.clusterserviceversion.yaml")))
          .get(0);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
