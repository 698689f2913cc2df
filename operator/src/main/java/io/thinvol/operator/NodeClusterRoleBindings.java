package io.thinvol.operator;

import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.Subject;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.operator.model.PrivilegedSccModel;
import io.thinvol.operator.model.RbacModel;
import io.thinvol.operator.model.Settings;
import java.util.Collection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node pods' ClusterRoleBindings, one of each for every backend: {@code thinvol-node} to the
 * shared node ClusterRole and, on OpenShift, {@code thinvol-node-privileged-scc} to the privileged
 * SCC's. Their subjects are the node ServiceAccounts of the backends that exist, rewritten by name
 * whenever they differ, so the operator may read and change no other binding. Like the ClusterRole
 * they outlive the last backend, with no subject left, granting nothing.
 */
final class NodeClusterRoleBindings {

  private static final Logger log = LoggerFactory.getLogger(NodeClusterRoleBindings.class);

  private NodeClusterRoleBindings() {}

  /** Binds the node ServiceAccounts of exactly {@code backends}. */
  static void ensure(
      KubernetesClient client, Settings settings, Collection<StorageBackend> backends) {
    ensure(client, RbacModel.clusterRoleBinding(backends, settings));
    if (settings.openShift()) {
      ensure(client, PrivilegedSccModel.binding(backends, settings));
    }
  }

  private static void ensure(KubernetesClient client, ClusterRoleBinding desired) {
    Resource<ClusterRoleBinding> named =
        client.rbac().clusterRoleBindings().withName(desired.getMetadata().getName());
    SharedObject.existingOrCreate(client, named, desired)
        .ifPresent(actual -> correct(named, actual, desired));
  }

  private static void correct(
      Resource<ClusterRoleBinding> named, ClusterRoleBinding actual, ClusterRoleBinding desired) {
    String name = desired.getMetadata().getName();
    if (!actual.getRoleRef().equals(desired.getRoleRef())) {
      // a roleRef cannot change, and the binding may be someone else's: not ours to delete
      throw new IllegalStateException(
          "ClusterRoleBinding "
              + name
              + " refers to "
              + actual.getRoleRef().getKind()
              + " "
              + actual.getRoleRef().getName()
              + ", not "
              + desired.getRoleRef().getName()
              + "; the operator needs that name for its node pods: delete that binding");
    }
    if (actual.getSubjects().equals(desired.getSubjects())) {
      return;
    }
    log.info(
        "ClusterRoleBinding {} now binds the node ServiceAccounts {}",
        name,
        desired.getSubjects().stream().map(Subject::getName).toList());
    named.edit(
        binding -> {
          binding.setSubjects(desired.getSubjects());
          return binding;
        });
  }
}
