package io.thinvol.testing;

import io.fabric8.kubernetes.api.model.HasMetadata;
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
  String PRIVILEGED_SCC_ROLE = "system:openshift:scc:privileged";
  String CONSOLE_CONFIG = "openshift-config-managed";

  static TestCluster start() {
    if (isReal()) {
      return RealCluster.start(); // the CRDs are installed once, with the shared server
    }
    TestCluster cluster =
        StrictCluster.start(
            Rbac.fromClusterServiceVersion(RepoFiles.clusterServiceVersion(), OPERATOR_NAMESPACE));
    cluster.installCrds();
    return cluster;
  }

  /** The tests run against a real API server ({@code -Preal-cluster}). */
  static boolean isReal() {
    return "real".equals(System.getProperty("thinvol.cluster"));
  }

  /** The cluster admin's client (what a test does as the user or as the cluster's controllers). */
  KubernetesClient admin();

  /** The strict mock server, to record expectations; empty on a real server. */
  Optional<StrictApiServer> strict();

  /**
   * Every resource request of a ServiceAccount since the cluster was started for this test, in
   * order, as the server answered it: the strict server's record, or the real server's audit log.
   * The strict server also records the {@code bind} its escalation check authorised, which the real
   * one checks without a request.
   */
  List<StrictApiServer.Decision> decisions();

  /**
   * Stores a custom resource its CRD's schema or rules refuse, as one stored before the CRD
   * tightened: the mock stores it past its checks; a real server while the CRD's schema is opened
   * for the moment.
   */
  <T extends HasMetadata> T createUnvalidated(T object);

  /**
   * Takes {@code verb} on {@code resource} out of the operator's grants, as an install from an
   * older or mis-set chart would have it (the fixture's roles are put back for the next test).
   */
  void revokeFromOperator(String resource, String verb);

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
    install(RepoFiles.crds());
  }

  /**
   * Installs the external-snapshotter's v1 snapshot CRDs (VolumeSnapshot, VolumeSnapshotContent,
   * VolumeSnapshotClass) with the fields thinvol's tests use, unless the cluster has them.
   */
  default void installSnapshotCrds() {
    installMissing("snapshot-crds.yaml");
  }

  /** Installs the external-snapshotter's v1 group snapshot CRDs, unless the cluster has them. */
  default void installGroupSnapshotCrds() {
    installMissing("group-snapshot-crds.yaml");
  }

  /** Installs the SnapshotMetadataService CRD (cbt.storage.k8s.io), unless the cluster has it. */
  default void installSnapshotMetadataCrd() {
    installMissing("snapshot-metadata-crd.yaml");
  }

  /**
   * Installs the Prometheus Operator's PodMonitor, ServiceMonitor and PrometheusRule CRDs
   * (monitoring.coreos.com/v1, specs unchecked), unless the cluster has them.
   */
  default void installMonitoringCrds() {
    installMissing("monitoring-crds.yaml");
  }

  /**
   * What OpenShift serves built in that thinvol meets, for a test that plays OpenShift: a stand-in
   * for its SecurityContextConstraints API and the ClusterRole {@value #PRIVILEGED_SCC_ROLE} that
   * lets its subjects use the privileged SCC; and the namespace {@value #CONSOLE_CONFIG} where the
   * console reads its dashboards.
   */
  default void playOpenShift() {
    installMissing("openshift-scc-crd.yaml");
    namespace(CONSOLE_CONFIG);
    if (admin().rbac().clusterRoles().withName(PRIVILEGED_SCC_ROLE).get() == null) {
      admin()
          .resource(
              new io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder()
                  .withNewMetadata()
                  .withName(PRIVILEGED_SCC_ROLE)
                  .endMetadata()
                  .addNewRule()
                  .withApiGroups("security.openshift.io")
                  .withResources("securitycontextconstraints")
                  .withResourceNames("privileged")
                  .withVerbs("use")
                  .endRule()
                  .build())
          .create();
    }
  }

  /** Installs the CRDs of a resource of this package that the cluster does not have yet. */
  private void installMissing(String resource) {
    String yaml;
    try (java.io.InputStream in = TestCluster.class.getResourceAsStream(resource)) {
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

  /** Creates the CRDs and waits until they are served (Established). */
  default void install(List<CustomResourceDefinition> crds) {
    crds.forEach(crd -> admin().resource(crd).create());
    for (CustomResourceDefinition crd : crds) {
      admin()
          .apiextensions()
          .v1()
          .customResourceDefinitions()
          .resource(crd)
          .waitUntilCondition(TestCluster::established, 30, java.util.concurrent.TimeUnit.SECONDS);
    }
  }

  /** The CRD's objects are served: condition Established True (no status before the first). */
  static boolean established(CustomResourceDefinition crd) {
    return crd != null
        && crd.getStatus() != null
        && crd.getStatus().getConditions() != null
        && crd.getStatus().getConditions().stream()
            .anyMatch(c -> c.getType().equals("Established") && c.getStatus().equals("True"));
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
