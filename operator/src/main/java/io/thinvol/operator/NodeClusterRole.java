package io.thinvol.operator;

import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.thinvol.operator.model.Names;
import io.thinvol.operator.model.RbacModel;
import io.thinvol.operator.model.Settings;
import java.net.HttpURLConnection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node pods' ClusterRole, shared by every backend and so owned by none: made when missing and
 * corrected when its rules differ, by name only (the operator may read and change no other
 * ClusterRole). It outlives the last backend, granting nothing while nothing binds it.
 */
final class NodeClusterRole {

  private static final Logger log = LoggerFactory.getLogger(NodeClusterRole.class);

  private NodeClusterRole() {}

  static void ensure(KubernetesClient client, Settings settings) {
    ClusterRole desired = RbacModel.clusterRole(settings);
    ClusterRole actual = client.rbac().clusterRoles().withName(Names.NODE_CLUSTER_ROLE).get();
    if (actual == null) {
      try {
        client.resource(desired).create();
        log.info("created ClusterRole {} for the node pods", Names.NODE_CLUSTER_ROLE);
        return;
      } catch (KubernetesClientException e) {
        if (e.getCode() != HttpURLConnection.HTTP_CONFLICT) {
          throw e;
        }
        // another backend's reconcile made it first
        actual = client.rbac().clusterRoles().withName(Names.NODE_CLUSTER_ROLE).get();
      }
    }
    if (actual.getRules().equals(desired.getRules())) {
      return;
    }
    log.info("updating the rules of ClusterRole {}", Names.NODE_CLUSTER_ROLE);
    client
        .rbac()
        .clusterRoles()
        .withName(Names.NODE_CLUSTER_ROLE)
        .edit(
            role -> {
              role.setRules(desired.getRules());
              return role;
            });
  }
}
