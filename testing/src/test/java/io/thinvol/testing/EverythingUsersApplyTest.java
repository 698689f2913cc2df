package io.thinvol.testing;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What users apply goes through the cluster: every copy of the CRDs (crds/, the OLM bundle's, the
 * chart's), and with each copy installed, every alm-example of the CSV and every YAML example of
 * the README and docs/ is created. The strict server validates them as a real one would (schema,
 * defaults, CEL rules); on a real server (-Preal-cluster) the CRDs also meet its CEL cost budget.
 */
class EverythingUsersApplyTest {

  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  private static final Pattern YAML_BLOCK = Pattern.compile("```yaml\\n(.*?)```", Pattern.DOTALL);

  TestCluster cluster;

  @BeforeEach
  void start() {
    cluster = TestCluster.start();
  }

  @AfterEach
  void stop() {
    cluster.close();
  }

  @Test
  void everyCrdCopyAndEveryExampleIsAccepted() throws Exception {
    List<String> applied = new ArrayList<>();
    for (String copy : List.of("crds", "bundle/manifests", "charts/thinvol/crds")) {
      for (Path file : RepoFiles.list(copy, "")) {
        String yaml = Files.readString(file);
        if (!yaml.matches("(?s).*\\nkind: \"?CustomResourceDefinition.*")) {
          continue;
        }
        cluster
            .admin()
            .resource(Serialization.unmarshal(yaml, CustomResourceDefinition.class))
            .createOr(NonDeletingOperation::update);
        applied.add(RepoFiles.root().relativize(file).toString());
      }
      applied.addAll(applyExamples(copy));
    }
    assertThat(applied)
        .as("CRD copies and examples applied")
        .contains("crds/storagebackends.thinvol.io-v1.yml")
        .anyMatch(a -> a.startsWith("alm-example"))
        .anyMatch(a -> a.startsWith("docs/"));
  }

  // Kinds of the external-snapshotter's CRDs, which the fixture does not serve: examples of them in
  // the docs (a VolumeGroupSnapshot) are the snapshotter's to check, not this fixture's.
  private static final Set<String> EXTERNAL_SNAPSHOTTER_GROUPS =
      Set.of("snapshot.storage.k8s.io", "groupsnapshot.storage.k8s.io");

  /** Creates every example, then deletes it so that the next CRD copy sees it created afresh. */
  private List<String> applyExamples(String copy) throws Exception {
    List<String> applied = new ArrayList<>();
    JsonNode csv = Serialization.unmarshal(RepoFiles.clusterServiceVersion(), JsonNode.class);
    JsonNode almExamples =
        Serialization.unmarshal(
            csv.at("/metadata/annotations").path("alm-examples").asText(), JsonNode.class);
    int n = 0;
    for (JsonNode example : almExamples) {
      applied.add(apply(example, "alm-example " + n++ + " with " + copy));
    }
    for (Path doc : docs()) {
      Matcher blocks = YAML_BLOCK.matcher(Files.readString(doc));
      for (int block = 1; blocks.find(); block++) {
        for (JsonNode object :
            YAML.readValues(YAML.getFactory().createParser(blocks.group(1)), JsonNode.class)
                .readAll()) {
          if (object != null && object.has("kind")) {
            applied.add(
                apply(
                    object,
                    RepoFiles.root().relativize(doc) + " block " + block + " with " + copy));
          }
        }
      }
    }
    return applied;
  }

  private String apply(JsonNode object, String where) {
    GenericKubernetesResource resource =
        Serialization.jsonMapper().convertValue(object, GenericKubernetesResource.class);
    String group =
        resource.getApiVersion().contains("/") ? resource.getApiVersion().split("/")[0] : "";
    if (EXTERNAL_SNAPSHOTTER_GROUPS.contains(group)) {
      return where
          + " ("
          + resource.getKind()
          + ": the external-snapshotter's CRD, not served here)";
    }
    String namespace = resource.getMetadata().getNamespace();
    if (namespace != null) {
      cluster.namespace(namespace);
    }
    try {
      GenericKubernetesResource created = cluster.admin().resource(resource).create();
      assertThat(created).as(where).isNotNull();
      if (!resource.getKind().equals("Namespace")) {
        // A claim stays until the pvc-protection controller releases it: the test plays it.
        PlayedControllers.deleteUnused(cluster.admin(), created);
      }
    } catch (RuntimeException e) {
      throw new AssertionError(
          where + " (" + resource.getKind() + ") refused: " + e.getMessage(), e);
    }
    return where;
  }

  private static List<Path> docs() throws Exception {
    List<Path> docs = new ArrayList<>();
    docs.add(RepoFiles.root().resolve("README.md"));
    try (Stream<Path> files = Files.list(RepoFiles.root().resolve("docs"))) {
      files.filter(f -> f.toString().endsWith(".md")).sorted().forEach(docs::add);
    }
    return docs;
  }
}
