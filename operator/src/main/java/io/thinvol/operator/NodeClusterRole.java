package io.thinvol.operator;

import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.thinvol.operator.model.Names;
import io.thinvol.operator.model.RbacModel;
import io.thinvol.operator.model.Settings;
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
    Resource<ClusterRole> named = client.rbac().clusterRoles().withName(Names.NODE_CLUSTER_ROLE);
    SharedObject.existingOrCreate(client, named, desired)
        .filter(actual -> !actual.getRules().equals(desired.getRules()))
        .ifPresent(
            actual -> {
              log.info("updating the rules of ClusterRole {}", Names.NODE_CLUSTER_ROLE);
              named.edit(
                  role -> {
                    role.setRules(desired.getRules());
                    return role;
                  });
            });
  }
}
