package io.thinvol.e2e.support;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;

/**
 * What docs/install.md ("Uninstalling", "The operator's rights") says outlives an uninstall, and
 * removes as the docs tell an admin to: the node pods' shared ClusterRole and bindings, the shared
 * TLS Secrets and the operator's Lease, and the namespace the admin made for the operator.
 */
public final class DocumentedLeftovers {

  public static final List<String> CLUSTER_ROLES = List.of("thinvol-node");
  public static final List<String> CLUSTER_ROLE_BINDINGS =
      List.of("thinvol-node", "thinvol-node-privileged-scc");
  public static final List<String> SECRETS =
      List.of("thinvol-addons-tls", "thinvol-snapshot-metadata-tls");
  public static final List<String> LEASES = List.of("thinvol-operator");
  private static final Duration NAMESPACE_LIMIT = Duration.ofMinutes(2);

  private DocumentedLeftovers() {}

  static void remove(KubernetesClient client) {
    CLUSTER_ROLES.forEach(name -> client.rbac().clusterRoles().withName(name).delete());
    CLUSTER_ROLE_BINDINGS.forEach(
        name -> client.rbac().clusterRoleBindings().withName(name).delete());
    SECRETS.forEach(name -> client.secrets().inNamespace(Names.OPERATOR).withName(name).delete());
    LEASES.forEach(name -> client.leases().inNamespace(Names.OPERATOR).withName(name).delete());
    client.namespaces().withName(Names.OPERATOR).delete();
    Waits.untilTrue(
        "namespace " + Names.OPERATOR + " to be deleted",
        NAMESPACE_LIMIT,
        () -> client.namespaces().withName(Names.OPERATOR).get() == null);
  }
}
