package io.thinvol.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.operator.model.Names;
import io.thinvol.operator.model.Settings;
import io.thinvol.operator.model.VolumeGroupSnapshotClass;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Where the cluster serves groupsnapshot.storage.k8s.io/v1, the snapshotter runs with group
 * snapshots on and may handle them, and each backend has a VolumeGroupSnapshotClass, removed with
 * the backend.
 */
class GroupSnapshotDeploymentTest extends MockClusterTest {

  static Settings servingGroupSnapshots() {
    return new Settings(NAMESPACE, SETTINGS.operatorImage(), false, true)
        .withGroupSnapshotApi(true);
  }

  @Override
  Settings settings() {
    return servingGroupSnapshots();
  }

  @Test
  @DisplayName("The gate on the snapshotter, its RBAC and the VolumeGroupSnapshotClass")
  void deployed() {
    apply("metadata:\n  name: grp\n");
    VolumeGroupSnapshotClass groupClass = clusterScoped(VolumeGroupSnapshotClass.class, "grp");
    assertThat(groupClass.getApiVersion()).isEqualTo("groupsnapshot.storage.k8s.io/v1");
    assertThat(groupClass.getDriver()).isEqualTo("grp.thinvol.io");
    assertThat(groupClass.getDeletionPolicy()).isEqualTo("Delete");

    DaemonSet node = namespaced(DaemonSet.class, "thinvol-grp-node");
    Container snapshotter =
        node.getSpec().getTemplate().getSpec().getContainers().stream()
            .filter(c -> c.getName().equals("csi-snapshotter"))
            .findFirst()
            .orElseThrow();
    assertThat(snapshotter.getArgs()).contains("--feature-gates=CSIVolumeGroupSnapshot=true");

    assertThat(clusterScoped(ClusterRole.class, Names.NODE_CLUSTER_ROLE).getRules())
        .anyMatch(r -> grants(r, "volumegroupsnapshotclasses", "watch"))
        .anyMatch(r -> grants(r, "volumegroupsnapshotcontents", "patch"))
        .anyMatch(r -> grants(r, "volumegroupsnapshotcontents/status", "update"));

    client.resources(StorageBackend.class).withName("grp").delete();
    await(
        "the VolumeGroupSnapshotClass removed with the backend",
        () -> client.resources(VolumeGroupSnapshotClass.class).withName("grp").get() == null);
  }

  private static boolean grants(PolicyRule rule, String resource, String verb) {
    return rule.getApiGroups().contains("groupsnapshot.storage.k8s.io")
        && rule.getResources().contains(resource)
        && rule.getVerbs().contains(verb);
  }
}
