package io.thinvol.operator;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.storage.CSIDriver;
import io.fabric8.kubernetes.api.model.storage.StorageClass;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.operator.model.GroupSnapshotModel;
import io.thinvol.operator.model.Names;
import io.thinvol.operator.model.Settings;
import io.thinvol.operator.model.SnapshotMetadataModel;
import io.thinvol.operator.model.SnapshotMetadataService;
import io.thinvol.operator.model.VolumeGroupSnapshotClass;
import io.thinvol.operator.model.VolumeSnapshotClass;
import io.thinvol.operator.monitoring.MonitoringApi;
import io.thinvol.operator.monitoring.PodMonitor;
import io.thinvol.operator.monitoring.PrometheusRule;
import java.util.List;

/**
 * Removes every object a deleted backend had once its node pods have stopped ({@link
 * NodePodsTeardown}), found by its label, and its resizers' Lease. Owner references would let the
 * garbage collector do it too, but only for objects that still carry them; deleting here also takes
 * what an older version or a person's edit left without one, so nothing outlives the backend.
 * ClusterRoleBindings are not among them: the node pods' are shared ({@link
 * NodeClusterRoleBindings}) and the operator may delete no binding. Nor are Secrets: the TLS
 * Secrets serve every backend and the operator may delete none (older versions' per-backend Secrets
 * are owned by their backend, so the garbage collector takes them).
 */
final class Leftovers {

  // The DaemonSet is not among them: it goes first, in removeDaemonSet.
  private static final List<Class<? extends HasMetadata>> NAMESPACED =
      List.of(NetworkPolicy.class, RoleBinding.class, Role.class, ServiceAccount.class);
  private static final List<Class<? extends HasMetadata>> CLUSTER_SCOPED =
      List.of(StorageClass.class, CSIDriver.class);

  private Leftovers() {}

  /** The first to go: no node pod is started again, and the running ones are stopped. */
  static void removeDaemonSet(KubernetesClient client, StorageBackend backend, Settings settings) {
    client
        .resources(DaemonSet.class)
        .inNamespace(settings.namespace())
        .withLabel(Names.BACKEND_LABEL, backend.getMetadata().getName())
        .delete();
  }

  static void remove(KubernetesClient client, StorageBackend backend, Settings settings) {
    String name = backend.getMetadata().getName();
    String namespace = settings.namespace();
    for (Class<? extends HasMetadata> type : NAMESPACED) {
      client.resources(type).inNamespace(namespace).withLabel(Names.BACKEND_LABEL, name).delete();
    }
    // The resizers' leader election Lease carries no label of ours: it goes by its name.
    client.leases().inNamespace(namespace).withName(Names.resizerLease(backend)).delete();
    for (Class<? extends HasMetadata> type : CLUSTER_SCOPED) {
      client.resources(type).withLabel(Names.BACKEND_LABEL, name).delete();
    }
    if (settings.snapshotApi()) {
      client.resources(VolumeSnapshotClass.class).withLabel(Names.BACKEND_LABEL, name).delete();
    }
    if (GroupSnapshotModel.deployed(settings)) {
      client
          .resources(VolumeGroupSnapshotClass.class)
          .withLabel(Names.BACKEND_LABEL, name)
          .delete();
    }
    if (MonitoringApi.deployed(settings)) {
      client
          .resources(PodMonitor.class)
          .inNamespace(namespace)
          .withLabel(Names.BACKEND_LABEL, name)
          .delete();
      client
          .resources(PrometheusRule.class)
          .inNamespace(namespace)
          .withLabel(Names.BACKEND_LABEL, name)
          .delete();
    }
    if (SnapshotMetadataModel.deployed(settings)) {
      client.services().inNamespace(namespace).withLabel(Names.BACKEND_LABEL, name).delete();
      client.resources(SnapshotMetadataService.class).withLabel(Names.BACKEND_LABEL, name).delete();
    }
  }
}
