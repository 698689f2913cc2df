package io.thinvol.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.thinvol.operator.model.Names;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Where the cluster serves no group snapshots, the snapshotter runs without the gate (with it, it
 * would stop serving ordinary snapshots) and nothing group-related is created or watched.
 */
class GroupSnapshotAbsentTest extends MockClusterTest {

  @Test
  @DisplayName("Without groupsnapshot.storage.k8s.io: no gate, rules, class or informer")
  void nothingDeployed() {
    assertThat(settings().snapshotApi()).isTrue();
    assertThat(settings().groupSnapshotApi()).isFalse();
    apply("metadata:\n  name: plain\n");
    DaemonSet node = namespaced(DaemonSet.class, "thinvol-plain-node");
    assertThat(node.getSpec().getTemplate().getSpec().getContainers())
        .as("the snapshotter runs, without the group snapshot gate")
        .anySatisfy(
            c -> {
              assertThat(c.getName()).isEqualTo("csi-snapshotter");
              assertThat(c.getArgs()).noneMatch(a -> a.contains("CSIVolumeGroupSnapshot"));
            });
    assertThat(clusterScoped(ClusterRole.class, Names.NODE_CLUSTER_ROLE).getRules())
        .noneMatch(r -> r.getApiGroups().contains("groupsnapshot.storage.k8s.io"));
    assertThat(operatorDecisions())
        .as("not even an informer on VolumeGroupSnapshotClasses")
        .isNotEmpty()
        .noneMatch(d -> "volumegroupsnapshotclasses".equals(d.request().resource()));
  }
}
