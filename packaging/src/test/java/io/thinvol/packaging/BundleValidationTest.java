package io.thinvol.packaging;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.thinvol.operator.model.Images;
import io.thinvol.operator.model.OperatorRbac;
import io.thinvol.testing.SchemaValidator;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What {@code operator-sdk bundle validate --select-optional suite=operatorframework} (operatorhub
 * and good-practices) checks, on the committed bundle.
 */
class BundleValidationTest {

  static final Path BUNDLE = GeneratedFilesTest.ROOT.resolve("bundle");
  static final Set<String> CATEGORIES =
      Set.of(
          "AI/Machine Learning",
          "Application Runtime",
          "Big Data",
          "Cloud Provider",
          "Database",
          "Developer Tools",
          "Drivers and plugins",
          "Integration & Delivery",
          "Logging & Tracing",
          "Modernization & Migration",
          "Monitoring",
          "Networking",
          "OpenShift Optional",
          "Security",
          "Storage",
          "Streaming & Messaging");
  static final Set<String> CAPABILITIES =
      Set.of("Basic Install", "Seamless Upgrades", "Full Lifecycle", "Deep Insights", "Auto Pilot");
  static final List<String> FEATURES =
      List.of(
          "disconnected",
          "fips-compliant",
          "proxy-aware",
          "tls-profiles",
          "token-auth-aws",
          "token-auth-azure",
          "token-auth-gcp",
          "cnf",
          "cni",
          "csi");
  static final Set<String> DEFAULT_SCCS =
      Set.of(
          "anyuid",
          "hostaccess",
          "hostmount-anyuid",
          "hostnetwork",
          "hostnetwork-v2",
          "node-exporter",
          "nonroot",
          "nonroot-v2",
          "privileged",
          "restricted",
          "restricted-v2");

  static JsonNode csv;
  static List<JsonNode> manifests;

  @BeforeAll
  static void read() throws IOException {
    manifests = new ArrayList<>();
    try (Stream<Path> files = Files.list(BUNDLE.resolve("manifests"))) {
      for (Path file : files.sorted().toList()) {
        manifests.addAll(CrdSchemas.documents(Files.readString(file)));
      }
    }
    csv =
        manifests.stream()
            .filter(m -> m.path("kind").asText().equals("ClusterServiceVersion"))
            .findFirst()
            .orElseThrow(() -> new AssertionError("no ClusterServiceVersion in bundle/manifests"));
  }

  @Test
  void theCsvIsNamedForItsVersion() {
    String version = csv.at("/spec/version").asText();
    assertThat(version).matches("\\d+\\.\\d+\\.\\d+(-[0-9A-Za-z.-]+)?");
    assertThat(csv.at("/metadata/name").asText()).isEqualTo("thinvol.v" + version);
    assertThat(version).isEqualTo(Release.current().version());
    assertThat(csv.at("/spec/minKubeVersion").asText()).matches("\\d+\\.\\d+\\.\\d+");
    assertThat(csv.at("/spec/displayName").asText()).isNotBlank();
    assertThat(csv.at("/spec/description").asText()).hasSizeGreaterThan(200);
    assertThat(csv.at("/spec/maturity").asText()).isNotBlank();
  }

  @Test
  void everyOwnedCrdIsInTheBundleAndEqualsCrds() throws IOException {
    Set<String> owned = new HashSet<>();
    for (JsonNode crd : csv.at("/spec/customresourcedefinitions/owned")) {
      owned.add(crd.path("name").asText());
      JsonNode definition =
          manifests.stream()
              .filter(m -> m.path("kind").asText().equals("CustomResourceDefinition"))
              .filter(m -> m.at("/metadata/name").asText().equals(crd.path("name").asText()))
              .findFirst()
              .orElseThrow(
                  () -> new AssertionError("owned CRD " + crd.path("name") + " is missing"));
      assertThat(definition.at("/spec/names/kind").asText()).isEqualTo(crd.path("kind").asText());
      List<String> served = new ArrayList<>();
      definition.at("/spec/versions").forEach(v -> served.add(v.path("name").asText()));
      assertThat(served).contains(crd.path("version").asText());
      assertThat(crd.path("displayName").asText()).isNotBlank();
      assertThat(crd.path("description").asText()).isNotBlank();
      assertThat(crd.path("specDescriptors")).isNotEmpty();
      if (!definition
          .at("/spec/versions/0/schema/openAPIV3Schema/properties/status/properties")
          .isMissingNode()) {
        assertThat(crd.path("statusDescriptors")).isNotEmpty(); // a class has no status fields
      }
    }
    assertThat(owned).hasSize(6);
    try (Stream<Path> files = Files.list(GeneratedFilesTest.ROOT.resolve("crds"))) {
      for (Path file : files.filter(f -> f.toString().endsWith(".yml")).toList()) {
        JsonNode crd = CrdSchemas.YAML.readTree(file.toFile());
        Path inBundle =
            BUNDLE
                .resolve("manifests")
                .resolve(
                    crd.at("/spec/group").asText()
                        + "_"
                        + crd.at("/spec/names/plural").asText()
                        + ".yaml");
        assertThat(Files.readString(inBundle)).isEqualTo(Files.readString(file));
        assertThat(owned).contains(crd.at("/metadata/name").asText());
      }
    }
  }

  @Test
  void almExamplesAreValidObjectsOfEveryOwnedKind() throws IOException {
    JsonNode examples =
        new ObjectMapper().readTree(csv.at("/metadata/annotations/alm-examples").asText());
    assertThat(examples.isArray()).isTrue();
    CrdSchemas schemas = new CrdSchemas(GeneratedFilesTest.ROOT.resolve("crds"));
    Set<String> kinds = new HashSet<>();
    for (JsonNode example : examples) {
      kinds.add(example.path("kind").asText());
      JsonNode schema =
          schemas
              .of(example)
              .orElseThrow(() -> new AssertionError("not an owned kind: " + example));
      assertThat(SchemaValidator.validate(schema, example))
          .as("%s", example.path("kind"))
          .isEmpty();
    }
    Set<String> owned = new HashSet<>();
    csv.at("/spec/customresourcedefinitions/owned")
        .forEach(o -> owned.add(o.path("kind").asText()));
    assertThat(kinds).isEqualTo(owned);
  }

  @Test
  void installModesIconMaintainersLinksAndAnnotations() {
    Set<String> modes = new HashSet<>();
    boolean anySupported = false;
    for (JsonNode mode : csv.at("/spec/installModes")) {
      modes.add(mode.path("type").asText());
      anySupported |= mode.path("supported").asBoolean();
    }
    assertThat(modes)
        .containsExactlyInAnyOrder(
            "OwnNamespace", "SingleNamespace", "MultiNamespace", "AllNamespaces");
    assertThat(anySupported).isTrue();
    JsonNode icon = csv.at("/spec/icon/0");
    assertThat(icon.path("mediatype").asText())
        .isIn("image/svg+xml", "image/png", "image/jpeg", "image/gif");
    assertThat(new String(Base64.getDecoder().decode(icon.path("base64data").asText())))
        .startsWith("<svg");
    assertThat(csv.at("/spec/maintainers")).isNotEmpty();
    csv.at("/spec/maintainers")
        .forEach(
            m -> {
              assertThat(m.path("name").asText()).isNotBlank();
              assertThat(m.path("email").asText()).matches("[^@\\s]+@[^@\\s]+\\.[a-z]+");
            });
    assertThat(csv.at("/spec/links")).isNotEmpty();
    csv.at("/spec/links")
        .forEach(
            l -> {
              assertThat(l.path("name").asText()).isNotBlank();
              assertThat(URI.create(l.path("url").asText()).getScheme()).isEqualTo("https");
            });
    assertThat(csv.at("/spec/provider/name").asText()).isNotBlank();
    JsonNode annotations = csv.at("/metadata/annotations");
    for (String category : annotations.path("categories").asText().split(",")) {
      assertThat(category.trim()).isIn(CATEGORIES);
    }
    assertThat(annotations.path("categories").asText()).contains("Storage");
    assertThat(annotations.path("capabilities").asText()).isIn(CAPABILITIES);
    for (String feature : FEATURES) {
      assertThat(annotations.path("features.operators.openshift.io/" + feature).asText())
          .as(feature)
          .isIn("true", "false");
    }
    assertThat(annotations.path("features.operators.openshift.io/csi").asText()).isEqualTo("true");
    assertThat(annotations.path("containerImage").asText()).isEqualTo(Release.current().image());
  }

  @Test
  void relatedImagesAreTheImagesTheOperatorDeploys() {
    List<String> related = new ArrayList<>();
    csv.at("/spec/relatedImages").forEach(i -> related.add(i.path("image").asText()));
    List<String> deployed = new ArrayList<>(Images.defaults());
    deployed.add(0, Release.current().image());
    assertThat(related).containsExactlyInAnyOrderElementsOf(deployed);
    for (JsonNode deployment : csv.at("/spec/install/spec/deployments")) {
      deployment
          .at("/spec/template/spec/containers")
          .forEach(c -> assertThat(related).contains(c.path("image").asText()));
    }
  }

  @Test
  void rbacIsTheOperatorsAndNoWider() {
    JsonNode install = csv.at("/spec/install/spec");
    String account = install.at("/deployments/0/spec/template/spec/serviceAccountName").asText();
    assertThat(install.at("/clusterPermissions/0/serviceAccountName").asText()).isEqualTo(account);
    assertThat(install.at("/permissions/0/serviceAccountName").asText()).isEqualTo(account);
    List<PolicyRule> cluster = rules(install.at("/clusterPermissions/0/rules"));
    List<PolicyRule> namespaced = rules(install.at("/permissions/0/rules"));
    assertThat(cluster).isEqualTo(OperatorRbac.clusterRules(true));
    assertThat(namespaced).isEqualTo(OperatorRbac.namespaceRules());
    for (PolicyRule rule : concat(cluster, namespaced)) {
      assertThat(rule.getVerbs()).doesNotContain("*");
      assertThat(rule.getResources()).doesNotContain("*");
      assertThat(rule.getApiGroups()).doesNotContain("*");
      if (rule.getResources().contains("securitycontextconstraints")) {
        assertThat(rule.getVerbs()).as("no SCC is used by the operator").doesNotContain("use");
        assertThat(rule.getResourceNames() == null ? List.<String>of() : rule.getResourceNames())
            .doesNotContainAnyElementsOf(DEFAULT_SCCS);
      }
      assertThat(rule.getVerbs()).as("no escalation").doesNotContain("escalate", "impersonate");
      if (rule.getVerbs().contains("bind")) {
        assertThat(rule.getResourceNames())
            .as("bind on OpenShift's privileged SCC role only (LeastPrivilegeTest)")
            .containsExactly("system:openshift:scc:privileged");
      }
    }
  }

  @Test
  void bundleMetadataAndDockerfileAgree() throws IOException {
    JsonNode annotations =
        CrdSchemas.YAML
            .readTree(BUNDLE.resolve("metadata/annotations.yaml").toFile())
            .path("annotations");
    assertThat(annotations.path("operators.operatorframework.io.bundle.mediatype.v1").asText())
        .isEqualTo("registry+v1");
    assertThat(annotations.path("operators.operatorframework.io.bundle.manifests.v1").asText())
        .isEqualTo("manifests/");
    assertThat(annotations.path("operators.operatorframework.io.bundle.metadata.v1").asText())
        .isEqualTo("metadata/");
    assertThat(annotations.path("operators.operatorframework.io.bundle.package.v1").asText())
        .isEqualTo("thinvol");
    String channels =
        annotations.path("operators.operatorframework.io.bundle.channels.v1").asText();
    assertThat(List.of(channels.split(",")))
        .contains(
            annotations.path("operators.operatorframework.io.bundle.channel.default.v1").asText());
    // operator-framework's good-practices validator warns on any other channel name.
    assertThat(List.of(channels.split(",")))
        .allMatch(List.of("stable", "candidate", "fast")::contains);
    assertThat(annotations.path("com.redhat.openshift.versions").asText()).matches("v4\\.\\d+");
    List<String> dockerfile = Files.readAllLines(BUNDLE.resolve("bundle.Dockerfile"));
    annotations
        .fields()
        .forEachRemaining(
            a ->
                assertThat(dockerfile)
                    .contains("LABEL " + a.getKey() + "=" + a.getValue().asText()));
    assertThat(dockerfile)
        .contains("FROM scratch", "COPY manifests /manifests/", "COPY metadata /metadata/");
  }

  private static List<PolicyRule> rules(JsonNode node) {
    List<PolicyRule> rules = new ArrayList<>();
    node.forEach(r -> rules.add(Serialization.unmarshal(r.toString(), PolicyRule.class)));
    return rules;
  }

  private static List<PolicyRule> concat(List<PolicyRule> a, List<PolicyRule> b) {
    List<PolicyRule> all = new ArrayList<>(a);
    all.addAll(b);
    return all;
  }
}
