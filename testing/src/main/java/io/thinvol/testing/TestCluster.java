package io.thinvol.testing;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.List;
import java.util.Optional;

/**
 * The cluster a test runs against. By default the strict mock API server ({@link StrictApiServer});
 * with {@code -Dthinvol.cluster=real} (the {@code real-cluster} Maven profile) a real
 * kube-apiserver with etcd. Either way the CRDs of {@code crds/} are installed, and the operator's
 * client acts as its ServiceAccount with exactly the bundle's RBAC.
 */
public interface TestCluster extends AutoCloseable {

  String OPERATOR_NAMESPACE = "thinvol-system";
  String OPERATOR_SERVICE_ACCOUNT = "thinvol-operator";
  String OPERATOR = Rbac.serviceAccount(OPERATOR_NAMESPACE, OPERATOR_SERVICE_ACCOUNT);

  static TestCluster start() {
    TestCluster cluster =
        "real".equals(System.getProperty("thinvol.cluster"))
            ? RealCluster.start()
            : StrictCluster.start(
                Rbac.fromClusterServiceVersion(
                    RepoFiles.clusterServiceVersion(), OPERATOR_NAMESPACE));
    cluster.installCrds();
    return cluster;
  }

  /** The cluster admin's client (what a test does as the user or as the cluster's controllers). */
  KubernetesClient admin();

  /**
   * The strict server's record of decisions; empty on a real server, which records nothing here.
   */
  Optional<StrictApiServer> strict();

  /** A client acting as a ServiceAccount, with {@code namespace} as its default namespace. */
  default KubernetesClient as(String user, String namespace) {
    return new KubernetesClientBuilder()
        .withConfig(impersonating(admin().getConfiguration(), user, namespace))
        .build();
  }

  /**
   * The admin's configuration acting as a ServiceAccount (also for a client in another process).
   */
  static Config impersonating(Config admin, String user, String namespace) {
    String[] parts = user.split(":");
    return new ConfigBuilder(admin)
        .withNamespace(namespace)
        .withImpersonateUsername(user)
        .withImpersonateGroups(
            "system:authenticated", "system:serviceaccounts", "system:serviceaccounts:" + parts[2])
        .build();
  }

  /** The operator's client, as in its pod. */
  default KubernetesClient operator() {
    return as(OPERATOR, OPERATOR_NAMESPACE);
  }

  /** Installs every CRD of {@code crds/}, as {@code kubectl apply -f crds/} does. */
  default void installCrds() {
    install(
        RepoFiles.list("crds", ".yml").stream()
            .map(file -> RepoFiles.read(RepoFiles.root().relativize(file).toString()))
            .map(yaml -> Serialization.unmarshal(yaml, CustomResourceDefinition.class))
            .toList());
  }

  /**
   * Installs the external-snapshotter's v1 snapshot CRDs (VolumeSnapshot, VolumeSnapshotContent,
   * VolumeSnapshotClass) with the fields thinvol's tests use, unless the cluster has them.
   */
  default void installSnapshotCrds() {
    String yaml;
    try (java.io.InputStream in = TestCluster.class.getResourceAsStream("snapshot-crds.yaml")) {
      yaml = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    install(
        java.util.Arrays.stream(yaml.split("(?m)^---$"))
            .map(document -> Serialization.unmarshal(document, CustomResourceDefinition.class))
            .filter(
                crd ->
                    admin()
                            .apiextensions()
                            .v1()
                            .customResourceDefinitions()
                            .withName(crd.getMetadata().getName())
                            .get()
                        == null)
            .toList());
  }

  /** Creates the CRDs; on a real server, waits until they are served. */
  default void install(List<CustomResourceDefinition> crds) {
    crds.forEach(crd -> admin().resource(crd).create());
    if (strict().isEmpty()) {
      for (CustomResourceDefinition crd : crds) {
        admin()
            .apiextensions()
            .v1()
            .customResourceDefinitions()
            .resource(crd)
            .waitUntilCondition(
                c ->
                    c.getStatus() != null
                        && c.getStatus().getConditions().stream()
                            .anyMatch(
                                k ->
                                    k.getType().equals("Established")
                                        && k.getStatus().equals("True")),
                30,
                java.util.concurrent.TimeUnit.SECONDS);
      }
    }
  }

  /** Creates a namespace unless it exists. */
  default void namespace(String name) {
    if (admin().namespaces().withName(name).get() == null) {
      admin()
          .namespaces()
          .resource(new NamespaceBuilder().withNewMetadata().withName(name).endMetadata().build())
          .create();
    }
  }

  @Override
  void close();
}
