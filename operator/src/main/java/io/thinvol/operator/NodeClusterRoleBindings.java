package io.thinvol.operator;

import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.Subject;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.operator.model.PrivilegedSccModel;
import io.thinvol.operator.model.RbacModel;
import io.thinvol.operator.model.Settings;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node pods' ClusterRoleBindings, one of each for every backend: {@code thinvol-node} to the
 * shared node ClusterRole and, on OpenShift, {@code thinvol-node-privileged-scc} to the privileged
 * SCC's. Their subjects are the node ServiceAccounts of the backends that exist, rewritten by name
 * whenever they differ, so the operator may read and change no other binding. Like the ClusterRole
 * they outlive the last backend, with no subject left, granting nothing.
 *
 * <p>One instance serves every backend's reconcile, which JOSDK runs in parallel: each write sets
 * the whole subject list from the reconcile's view, so the views are read and written under one
 * lock, and a backend whose objects were removed is left out even while the informer's cache still
 * holds it (its finalizer goes after the cleanup) — otherwise another backend's reconcile in that
 * window, or two deletions at once, would bind a deleted backend's ServiceAccount again.
 */
final class NodeClusterRoleBindings {

  private static final Logger log = LoggerFactory.getLogger(NodeClusterRoleBindings.class);

  private final Set<String> removedUids = new HashSet<>();

  /** Binds the node ServiceAccounts of the backends {@code cached} lists, but removed ones. */
  synchronized void bind(
      KubernetesClient client, Settings settings, Supplier<List<StorageBackend>> cached) {
    List<StorageBackend> backends = cached.get();
    removedUids.retainAll(backends.stream().map(b -> b.getMetadata().getUid()).toList());
    List<StorageBackend> bound =
        backends.stream().filter(b -> !removedUids.contains(b.getMetadata().getUid())).toList();
    ensure(client, RbacModel.clusterRoleBinding(bound, settings));
    if (settings.openShift()) {
      ensure(client, PrivilegedSccModel.binding(bound, settings));
    }
  }

  /** Unbinds {@code removed}, whose objects are gone, for good. */
  synchronized void unbind(
      KubernetesClient client,
      Settings settings,
      StorageBackend removed,
      Supplier<List<StorageBackend>> cached) {
    removedUids.add(removed.getMetadata().getUid());
    bind(client, settings, cached);
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
