package io.thinvol.e2e.support;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.apps.DeploymentSpec;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Installs the operator from {@code bundle/manifests} as OLM does for an AllNamespaces install: the
 * CRDs, the suggested namespace, the CSV's {@code clusterPermissions} and {@code permissions} as
 * ClusterRoles and Roles bound to its ServiceAccount, and the CSV's Deployment, its spec verbatim
 * but for the images.
 */
public final class OlmBundle {

  private static final Duration ESTABLISHED_LIMIT = Duration.ofMinutes(1);
  private static final Duration AVAILABLE_LIMIT = Duration.ofMinutes(3);
  private static final String OPERATOR_CONTAINER = "operator";
  private static final String DRIVER_IMAGE_VARIABLE = "RELATED_IMAGE_DRIVER";

  private final Kube kube;
  private final KubernetesClient client;
  private final Path manifests;

  public OlmBundle(Kube kube, Path repository) {
    this.kube = kube;
    this.client = kube.client();
    this.manifests = repository.resolve("bundle/manifests");
  }

  /** What an install created, for the step table. */
  public record Installed(int crds, int clusterRules, int namespaceRules, String deployment) {}

  public Installed install(String image, String driverImage) {
    List<CustomResourceDefinition> crds = crds();
    crds.forEach(kube::apply);
    crds.forEach(this::awaitEstablished);
    GenericKubernetesResource csv = csv();
    Map<String, Object> install =
        map(map(csv.getAdditionalProperties().get("spec")).get("install"));
    Map<String, Object> strategy = map(install.get("spec"));
    kube.apply(suggestedNamespace(csv));
    String prefix = csv.getMetadata().getName();
    int clusterRules = 0;
    for (Map<String, Object> grant : list(strategy.get("clusterPermissions"))) {
      String account = serviceAccount(grant);
      List<PolicyRule> rules = rules(grant);
      clusterRules += rules.size();
      String name = prefix + "-" + account;
      kube.apply(new ClusterRoleBuilder().withMetadata(meta(name, null)).withRules(rules).build());
      kube.apply(
          new ClusterRoleBindingBuilder()
              .withMetadata(meta(name, null))
              .withNewRoleRef("rbac.authorization.k8s.io", "ClusterRole", name)
              .addNewSubject()
              .withKind("ServiceAccount")
              .withName(account)
              .withNamespace(Names.OPERATOR)
              .endSubject()
              .build());
    }
    int namespaceRules = 0;
    for (Map<String, Object> grant : list(strategy.get("permissions"))) {
      String account = serviceAccount(grant);
      List<PolicyRule> rules = rules(grant);
      namespaceRules += rules.size();
      String name = prefix + "-" + account;
      kube.apply(
          new RoleBuilder().withMetadata(meta(name, Names.OPERATOR)).withRules(rules).build());
      kube.apply(
          new RoleBindingBuilder()
              .withMetadata(meta(name, Names.OPERATOR))
              .withNewRoleRef("rbac.authorization.k8s.io", "Role", name)
              .addNewSubject()
              .withKind("ServiceAccount")
              .withName(account)
              .withNamespace(Names.OPERATOR)
              .endSubject()
              .build());
    }
    List<Map<String, Object>> deployments = list(strategy.get("deployments"));
    Deployment deployment = deployment(deployments.get(0), image, driverImage);
    kube.apply(deployment);
    awaitAvailable(deployment.getMetadata().getName());
    return new Installed(
        crds.size(), clusterRules, namespaceRules, deployment.getMetadata().getName());
  }

  /** Replaces the operator's image, as a new CSV of another release would. */
  public void upgrade(String deploymentName, String image) {
    client
        .apps()
        .deployments()
        .inNamespace(Names.OPERATOR)
        .withName(deploymentName)
        .edit(
            d ->
                new DeploymentBuilder(d)
                    .editSpec()
                    .editTemplate()
                    .editSpec()
                    .editMatchingContainer(c -> c.getName().equals(OPERATOR_CONTAINER))
                    .withImage(image)
                    .endContainer()
                    .endSpec()
                    .endTemplate()
                    .endSpec()
                    .build());
    awaitAvailable(deploymentName);
  }

  /** What deleting the CSV and then the CRDs removes (docs/install.md, "Uninstalling" 3 and 4). */
  public void uninstall(Duration within) {
    client.apps().deployments().inNamespace(Names.OPERATOR).withLabel(Names.INSTALLED_BY).delete();
    Waits.untilTrue(
        "the operator's pods to be gone",
        within,
        () ->
            client
                .pods()
                .inNamespace(Names.OPERATOR)
                .withLabel("app.kubernetes.io/name", "thinvol-operator")
                .list()
                .getItems()
                .isEmpty());
    client.rbac().clusterRoleBindings().withLabel(Names.INSTALLED_BY).delete();
    client.rbac().clusterRoles().withLabel(Names.INSTALLED_BY).delete();
    client.rbac().roleBindings().inNamespace(Names.OPERATOR).withLabel(Names.INSTALLED_BY).delete();
    client.rbac().roles().inNamespace(Names.OPERATOR).withLabel(Names.INSTALLED_BY).delete();
    client.serviceAccounts().inNamespace(Names.OPERATOR).withLabel(Names.INSTALLED_BY).delete();
    List<CustomResourceDefinition> crds = crds();
    crds.forEach(crd -> client.resource(crd).delete());
    Waits.untilTrue(
        "the bundle's CRDs to be gone",
        within,
        () ->
            crds.stream()
                .allMatch(
                    crd ->
                        client
                                .apiextensions()
                                .v1()
                                .customResourceDefinitions()
                                .withName(crd.getMetadata().getName())
                                .get()
                            == null));
  }

  private List<CustomResourceDefinition> crds() {
    return items().stream()
        .filter(CustomResourceDefinition.class::isInstance)
        .map(CustomResourceDefinition.class::cast)
        .toList();
  }

  private GenericKubernetesResource csv() {
    return items().stream()
        .filter(o -> "ClusterServiceVersion".equals(o.getKind()))
        .map(GenericKubernetesResource.class::cast)
        .findFirst()
        .orElseThrow(() -> new AssertionError("no ClusterServiceVersion in " + manifests));
  }

  private List<HasMetadata> items() {
    List<HasMetadata> items = new ArrayList<>();
    try (Stream<Path> files = Files.list(manifests)) {
      for (Path file : files.sorted().toList()) {
        try (InputStream in = Files.newInputStream(file)) {
          items.addAll(client.load(in).items());
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return items;
  }

  private Namespace suggestedNamespace(GenericKubernetesResource csv) {
    String template =
        csv.getMetadata().getAnnotations().get("operatorframework.io/suggested-namespace-template");
    Namespace namespace = serialization().unmarshal(template, Namespace.class);
    if (!Names.OPERATOR.equals(namespace.getMetadata().getName())) {
      throw new AssertionError(
          "the CSV suggests namespace "
              + namespace.getMetadata().getName()
              + ", the suite expects "
              + Names.OPERATOR);
    }
    return namespace;
  }

  private Deployment deployment(Map<String, Object> entry, String image, String driverImage) {
    DeploymentSpec spec = serialization().convertValue(entry.get("spec"), DeploymentSpec.class);
    @SuppressWarnings("unchecked")
    Map<String, String> labels = (Map<String, String>) entry.getOrDefault("label", Map.of());
    Deployment deployment =
        new DeploymentBuilder()
            .withMetadata(
                new ObjectMetaBuilder(meta((String) entry.get("name"), Names.OPERATOR))
                    .addToLabels(labels)
                    .build())
            .withSpec(spec)
            .build();
    return new DeploymentBuilder(deployment)
        .editSpec()
        .editTemplate()
        .editSpec()
        .editMatchingContainer(c -> c.getName().equals(OPERATOR_CONTAINER))
        .withImage(image)
        .editMatchingEnv(e -> e.getName().equals(DRIVER_IMAGE_VARIABLE))
        .withValue(driverImage)
        .endEnv()
        .endContainer()
        .endSpec()
        .endTemplate()
        .endSpec()
        .build();
  }

  private void awaitEstablished(CustomResourceDefinition crd) {
    String name = crd.getMetadata().getName();
    Waits.untilTrue(
        "CRD " + name + " to be Established",
        ESTABLISHED_LIMIT,
        () ->
            Optional.ofNullable(
                    client.apiextensions().v1().customResourceDefinitions().withName(name).get())
                .map(
                    c ->
                        c.getStatus() != null
                            && c.getStatus().getConditions() != null
                            && c.getStatus().getConditions().stream()
                                .anyMatch(
                                    k ->
                                        "Established".equals(k.getType())
                                            && "True".equals(k.getStatus())))
                .orElse(false));
  }

  /** Waits until the Deployment's one new pod is available and no old one runs. */
  private void awaitAvailable(String name) {
    Waits.untilTrue(
        "the operator Deployment " + name + " to be available",
        AVAILABLE_LIMIT,
        () -> {
          Deployment d =
              client.apps().deployments().inNamespace(Names.OPERATOR).withName(name).get();
          return d != null
              && d.getStatus() != null
              && d.getMetadata().getGeneration().equals(d.getStatus().getObservedGeneration())
              && Integer.valueOf(1).equals(d.getStatus().getAvailableReplicas())
              && Integer.valueOf(1).equals(d.getStatus().getUpdatedReplicas())
              && Integer.valueOf(1).equals(d.getStatus().getReplicas());
        });
  }

  private static ObjectMeta meta(String name, String namespace) {
    return new ObjectMetaBuilder()
        .withName(name)
        .withNamespace(namespace)
        .addToLabels(Names.INSTALLED_BY, "olm")
        .build();
  }

  private String serviceAccount(Map<String, Object> grant) {
    String account = (String) grant.get("serviceAccountName");
    kube.apply(new ServiceAccountBuilder().withMetadata(meta(account, Names.OPERATOR)).build());
    return account;
  }

  private List<PolicyRule> rules(Map<String, Object> grant) {
    return list(grant.get("rules")).stream()
        .map(r -> serialization().convertValue(r, PolicyRule.class))
        .toList();
  }

  private KubernetesSerialization serialization() {
    return client.getKubernetesSerialization();
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
