package io.thinvol.testing;

import io.fabric8.kubeapitest.KubeAPIServer;
import io.fabric8.kubeapitest.KubeAPIServerConfigBuilder;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBuilder;
import io.fabric8.kubernetes.api.model.rbac.Subject;
import io.fabric8.kubernetes.api.model.rbac.SubjectBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * A real kube-apiserver and etcd (fabric8 kube-api-test), no controllers: the same tests, the real
 * server's RBAC, admission, CEL cost budget and validation. The binaries come from {@code
 * -Dthinvol.kubeapi.dir=DIR} (kube-api-test's directory layout, offline) or are downloaded.
 */
final class RealCluster implements TestCluster {

  static final String BINARIES = "thinvol.kubeapi.dir";

  private final KubeAPIServer server;
  private final KubernetesClient admin;

  private RealCluster(KubeAPIServer server, KubernetesClient admin) {
    this.server = server;
    this.admin = admin;
  }

  static RealCluster start() {
    KubeAPIServerConfigBuilder config = KubeAPIServerConfigBuilder.anAPIServerConfig();
    String dir = System.getProperty(BINARIES, "");
    if (!dir.isEmpty()) {
      if (!Files.isDirectory(Path.of(dir))) {
        throw new IllegalStateException(BINARIES + "=" + dir + " is not a directory");
      }
      config.withTestDir(dir).withOfflineMode(true);
    }
    KubeAPIServer server = new KubeAPIServer(config.build());
    try {
      server.start();
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
    KubernetesClient admin =
        new KubernetesClientBuilder()
            .withConfig(Config.fromKubeconfig(server.getKubeConfigYaml()))
            .build();
    RealCluster cluster = new RealCluster(server, admin);
    cluster.installOperatorRbac();
    return cluster;
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
  public void close() {
    admin.close();
    server.stop();
  }

  private static Subject operatorSubject(String serviceAccount) {
    return new SubjectBuilder()
        .withKind("ServiceAccount")
        .withName(serviceAccount)
        .withNamespace(OPERATOR_NAMESPACE)
        .build();
  }
}
