package io.thinvol.testing;

import io.fabric8.kubeapitest.KubeAPIServerConfigBuilder;
import io.fabric8.kubeapitest.binary.Binaries;
import io.fabric8.kubeapitest.binary.BinaryManager;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBuilder;
import io.fabric8.kubernetes.api.model.rbac.Subject;
import io.fabric8.kubernetes.api.model.rbac.SubjectBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.thinvol.testing.real.ClusterBaseline;
import io.thinvol.testing.real.CrdLoosening;
import io.thinvol.testing.real.LocalApiServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * A real kube-apiserver and etcd, no controllers: the same tests, the real server's RBAC,
 * admission, CEL cost budget and validation. One server serves every test of a JVM ({@link
 * LocalApiServer}, started by the first test, stopped when the JVM ends); each test gets the
 * cluster as the first did ({@link ClusterBaseline}: what a test made is deleted when it closes the
 * cluster). The binaries come from {@code -Dthinvol.kubeapi.dir=DIR} (kube-api-test's directory
 * layout, offline) or are downloaded by kube-api-test.
 */
final class RealCluster implements TestCluster {

  static final String BINARIES = "thinvol.kubeapi.dir";

  /** On the roles the fixture made for the operator, as OLM makes them from the CSV. */
  private static final String FIXTURE_LABEL = "thinvol.io/test-fixture";

  private static LocalApiServer server;
  private static ClusterBaseline baseline;
  private static RuntimeException startFailure;

  /** A test has the cluster and has not closed it yet: the next one resets it first. */
  private static boolean dirty;

  private final KubernetesClient admin;

  /** Where this test's requests start in the audit log. */
  private final int firstDecision;

  private RealCluster(KubernetesClient admin) {
    this.admin = admin;
    this.firstDecision = server.auditLog().mark(admin);
  }

  static synchronized RealCluster start() {
    if (startFailure != null) {
      throw startFailure; // once per JVM, not once per test
    }
    if (server == null) {
      try {
        startShared();
      } catch (RuntimeException e) {
        startFailure = e;
        throw e;
      }
    }
    RealCluster cluster = new RealCluster(client());
    if (dirty) {
      baseline.restore(cluster.admin);
    }
    dirty = true;
    return cluster;
  }

  private static void startShared() {
    Binaries binaries = binaries();
    server = LocalApiServer.start(binaries.getApiServer().toPath(), binaries.getEtcd().toPath());
    Runtime.getRuntime().addShutdownHook(new Thread(server::close, "kube-apiserver-stop"));
    try (RealCluster first = new RealCluster(client())) {
      first.installOperatorRbac();
      first.installCrds();
      // A test playing OpenShift needs it, and this server refuses to delete it once made.
      first.namespace(CONSOLE_CONFIG);
      baseline = ClusterBaseline.take(first.admin);
    }
  }

  private static KubernetesClient client() {
    return new KubernetesClientBuilder().withConfig(server.config()).build();
  }

  private static Binaries binaries() {
    KubeAPIServerConfigBuilder config = KubeAPIServerConfigBuilder.anAPIServerConfig();
    String dir = System.getProperty(BINARIES, "");
    if (!dir.isEmpty()) {
      if (!Files.isDirectory(Path.of(dir))) {
        throw new IllegalStateException(BINARIES + "=" + dir + " is not a directory");
      }
      config.withTestDir(dir).withOfflineMode(true);
    }
    try {
      BinaryManager binaries = new BinaryManager(config.build());
      binaries.initAndDownloadIfRequired();
      return binaries.binaries();
    } catch (RuntimeException e) {
      throw new IllegalStateException(
          "-Preal-cluster needs a kube-apiserver and etcd: give -D"
              + BINARIES
              + "=DIR with kube-api-test's layout (DIR/k8s/<version>-linux-amd64/{kube-apiserver,"
              + "etcd,kubectl}), or run where https://dl.k8s.io is reachable to download them ("
              + e.getMessage()
              + ")",
          e);
    }
  }

  /** The CSV's RBAC as OLM installs it: roles bound to the operator's ServiceAccount. */
  private void installOperatorRbac() {
    namespace(OPERATOR_NAMESPACE);
    admin
        .resource(
            new ServiceAccountBuilder()
                .withNewMetadata()
                .withName(OPERATOR_SERVICE_ACCOUNT)
                .withNamespace(OPERATOR_NAMESPACE)
                .endMetadata()
                .build())
        .create();
    Rbac rbac =
        Rbac.fromClusterServiceVersion(RepoFiles.clusterServiceVersion(), OPERATOR_NAMESPACE);
    int n = 0;
    for (Rbac.Grant grant : rbac.grants()) {
      String name = "thinvol-operator-" + n++;
      String sa = grant.user().substring(grant.user().lastIndexOf(':') + 1);
      if (grant.namespace() == null) {
        admin
            .resource(
                new ClusterRoleBuilder()
                    .withNewMetadata()
                    .withName(name)
                    .withLabels(java.util.Map.of(FIXTURE_LABEL, "operator"))
                    .endMetadata()
                    .withRules(grant.rules())
                    .build())
            .create();
        admin
            .resource(
                new ClusterRoleBindingBuilder()
                    .withNewMetadata()
                    .withName(name)
                    .endMetadata()
                    .withNewRoleRef("rbac.authorization.k8s.io", "ClusterRole", name)
                    .withSubjects(operatorSubject(sa))
                    .build())
            .create();
      } else {
        admin
            .resource(
                new RoleBuilder()
                    .withNewMetadata()
                    .withName(name)
                    .withNamespace(grant.namespace())
                    .withLabels(java.util.Map.of(FIXTURE_LABEL, "operator"))
                    .endMetadata()
                    .withRules(grant.rules())
                    .build())
            .create();
        admin
            .resource(
                new RoleBindingBuilder()
                    .withNewMetadata()
                    .withName(name)
                    .withNamespace(grant.namespace())
                    .endMetadata()
                    .withNewRoleRef("rbac.authorization.k8s.io", "Role", name)
                    .withSubjects(operatorSubject(sa))
                    .build())
            .create();
      }
    }
  }

  @Override
  public KubernetesClient admin() {
    return admin;
  }

  @Override
  public Optional<StrictApiServer> strict() {
    return Optional.empty();
  }

  @Override
  public List<StrictApiServer.Decision> decisions() {
    return server.auditLog().since(admin, firstDecision);
  }

  @Override
  public <T extends HasMetadata> T createUnvalidated(T object) {
    return CrdLoosening.createUnvalidated(admin, object);
  }

  /** Edits the fixture's roles of the operator (the reset writes them back). */
  @Override
  public void revokeFromOperator(String resource, String verb) {
    for (var role : admin.rbac().clusterRoles().withLabel(FIXTURE_LABEL).list().getItems()) {
      if (Rbac.revoke(role.getRules(), resource, verb)) {
        admin.resource(role).update();
      }
    }
    for (var role :
        admin.rbac().roles().inAnyNamespace().withLabel(FIXTURE_LABEL).list().getItems()) {
      if (Rbac.revoke(role.getRules(), resource, verb)) {
        admin.resource(role).update();
      }
    }
  }

  /** Resets the shared cluster for the next test. */
  @Override
  public void close() {
    try {
      synchronized (RealCluster.class) {
        if (baseline != null) {
          baseline.restore(admin);
          dirty = false;
        }
      }
    } finally {
      admin.close();
    }
  }

  private static Subject operatorSubject(String serviceAccount) {
    return new SubjectBuilder()
        .withKind("ServiceAccount")
        .withName(serviceAccount)
        .withNamespace(OPERATOR_NAMESPACE)
        .build();
  }
}
