package io.thinvol.e2e.support;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apps.DeploymentSpec;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * What OLM reads of {@code bundle/manifests}: the CRDs, and the CSV's suggested namespace and
 * install strategy (the rules to grant each ServiceAccount, the Deployment).
 */
final class BundleManifests {

  /** Rules a CSV grants a ServiceAccount, cluster-wide or in the install namespace. */
  record Grant(String serviceAccount, List<PolicyRule> rules) {}

  /** A Deployment of the install strategy: its name, labels and spec as the CSV gives them. */
  record DeploymentEntry(String name, Map<String, String> labels, DeploymentSpec spec) {}

  private final List<HasMetadata> items;
  private final KubernetesSerialization serialization;

  BundleManifests(KubernetesClient client, Path manifests) {
    this.serialization = client.getKubernetesSerialization();
    this.items = new ArrayList<>();
    try (Stream<Path> files = Files.list(manifests)) {
      for (Path file : files.sorted().toList()) {
        try (InputStream in = Files.newInputStream(file)) {
          items.addAll(client.load(in).items());
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  List<CustomResourceDefinition> crds() {
    return items.stream()
        .filter(CustomResourceDefinition.class::isInstance)
        .map(CustomResourceDefinition.class::cast)
        .toList();
  }

  String csvName() {
    return csv().getMetadata().getName();
  }

  /** The namespace of {@code operatorframework.io/suggested-namespace-template}. */
  Namespace suggestedNamespace() {
    String template =
        csv()
            .getMetadata()
            .getAnnotations()
            .get("operatorframework.io/suggested-namespace-template");
    return serialization.unmarshal(template, Namespace.class);
  }

  List<Grant> clusterPermissions() {
    return grants("clusterPermissions");
  }

  List<Grant> permissions() {
    return grants("permissions");
  }

  List<DeploymentEntry> deployments() {
    return list(strategy().get("deployments")).stream()
        .map(
            entry -> {
              @SuppressWarnings("unchecked")
              Map<String, String> labels =
                  (Map<String, String>) entry.getOrDefault("label", Map.of());
              return new DeploymentEntry(
                  (String) entry.get("name"),
                  labels,
                  serialization.convertValue(entry.get("spec"), DeploymentSpec.class));
            })
        .toList();
  }

  private List<Grant> grants(String field) {
    return list(strategy().get(field)).stream()
        .map(
            grant ->
                new Grant(
                    (String) grant.get("serviceAccountName"),
                    list(grant.get("rules")).stream()
                        .map(rule -> serialization.convertValue(rule, PolicyRule.class))
                        .toList()))
        .toList();
  }

  private Map<String, Object> strategy() {
    Map<String, Object> install =
        map(map(csv().getAdditionalProperties().get("spec")).get("install"));
    return map(install.get("spec"));
  }

  private GenericKubernetesResource csv() {
    return items.stream()
        .filter(o -> "ClusterServiceVersion".equals(o.getKind()))
        .map(GenericKubernetesResource.class::cast)
        .findFirst()
        .orElseThrow(() -> new AssertionError("no ClusterServiceVersion in the bundle"));
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> map(Object value) {
    return (Map<String, Object>) value;
  }

  @SuppressWarnings("unchecked")
  private static List<Map<String, Object>> list(Object value) {
    return value == null ? List.of() : (List<Map<String, Object>>) value;
  }
}
