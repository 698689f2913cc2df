package io.thinvol.e2e.support;

import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBuilder;
import io.fabric8.kubernetes.api.model.rbac.Subject;
import io.fabric8.kubernetes.api.model.rbac.SubjectBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

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
  private final BundleManifests bundle;

  public OlmBundle(Kube kube, Path repository) {
    this.kube = kube;
    this.client = kube.client();
    this.bundle = new BundleManifests(kube.client(), repository.resolve("bundle/manifests"));
  }

  /** What an install created, for the step table. */
  public record Installed(int crds, int clusterRules, int namespaceRules, String deployment) {}

  public Installed install(String image, String driverImage) {
    List<CustomResourceDefinition> crds = bundle.crds();
    crds.forEach(kube::apply);
    crds.forEach(this::awaitEstablished);
    Namespace namespace = bundle.suggestedNamespace();
    if (!Names.OPERATOR.equals(namespace.getMetadata().getName())) {
      throw new AssertionError(
          "the CSV suggests namespace "
              + namespace.getMetadata().getName()
              + ", the suite expects "
              + Names.OPERATOR);
    }
    kube.apply(namespace);
    int clusterRules = 0;
    for (BundleManifests.Grant grant : bundle.clusterPermissions()) {
      String name = roleName(grant);
      kube.apply(
          new ClusterRoleBuilder().withMetadata(meta(name, null)).withRules(grant.rules()).build());
      kube.apply(
          new ClusterRoleBindingBuilder()
              .withMetadata(meta(name, null))
              .withNewRoleRef("rbac.authorization.k8s.io", "ClusterRole", name)
              .withSubjects(subject(grant))
              .build());
      clusterRules += grant.rules().size();
    }
    int namespaceRules = 0;
    for (BundleManifests.Grant grant : bundle.permissions()) {
      String name = roleName(grant);
      kube.apply(
          new RoleBuilder()
              .withMetadata(meta(name, Names.OPERATOR))
              .withRules(grant.rules())
              .build());
      kube.apply(
          new RoleBindingBuilder()
              .withMetadata(meta(name, Names.OPERATOR))
              .withNewRoleRef("rbac.authorization.k8s.io", "Role", name)
              .withSubjects(subject(grant))
              .build());
      namespaceRules += grant.rules().size();
    }
    Deployment deployment = deployment(bundle.deployments().get(0), image, driverImage);
    kube.apply(deployment);
    awaitAvailable(deployment.getMetadata().getName());
    return new Installed(
        crds.size(), clusterRules, namespaceRules, deployment.getMetadata().getName());
  }

  /** OLM's name for a grant's (Cluster)Role and binding: the CSV's and the account's. */
  private String roleName(BundleManifests.Grant grant) {
    kube.apply(
        new ServiceAccountBuilder()
            .withMetadata(meta(grant.serviceAccount(), Names.OPERATOR))
            .build());
    return bundle.csvName() + "-" + grant.serviceAccount();
  }

  private static Subject subject(BundleManifests.Grant grant) {
    return new SubjectBuilder()
        .withKind("ServiceAccount")
        .withName(grant.serviceAccount())
        .withNamespace(Names.OPERATOR)
        .build();
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
    List<CustomResourceDefinition> crds = bundle.crds();
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

  /** The CSV's Deployment verbatim, but for the operator's image and the driver's. */
  private static Deployment deployment(
      BundleManifests.DeploymentEntry entry, String image, String driverImage) {
    Deployment deployment =
        new DeploymentBuilder()
            .withMetadata(
                new ObjectMetaBuilder(meta(entry.name(), Names.OPERATOR))
                    .addToLabels(entry.labels())
                    .build())
            .withSpec(entry.spec())
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

  /** Waits until each of the Deployment's replicas is new and available and no old one runs. */
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
              && d.getSpec().getReplicas().equals(d.getStatus().getAvailableReplicas())
              && d.getSpec().getReplicas().equals(d.getStatus().getUpdatedReplicas())
              && d.getSpec().getReplicas().equals(d.getStatus().getReplicas());
        });
  }

  private static ObjectMeta meta(String name, String namespace) {
    return new ObjectMetaBuilder()
        .withName(name)
        .withNamespace(namespace)
        .addToLabels(Names.INSTALLED_BY, "olm")
        .build();
  }
}
