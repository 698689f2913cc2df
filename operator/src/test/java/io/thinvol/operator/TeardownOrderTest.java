package io.thinvol.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.rbac.Subject;
import io.fabric8.kubernetes.api.model.storage.CSIDriver;
import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.operator.model.Names;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * A deleted backend's node pods stop before the permissions their sidecars use are removed (a
 * provisioner still running was refused creating CSIStorageCapacities 130 ms after the deletion),
 * and its resizers' leader election Lease goes with the rest.
 */
class TeardownOrderTest extends MockClusterTest {

  private static final String LEASE = "external-resizer-local-thinvol-io";
  private static final String POD = "thinvol-local-node-x7k2p";

  @Test
  @DisplayName(
      "The DaemonSet goes first; RBAC, CSIDriver and the resizers' Lease once its pods stop")
  void permissionsOutliveTheNodePods() {
    StorageBackend backend = apply("metadata:\n  name: local\n");
    namespaced(DaemonSet.class, "thinvol-local-node");
    namespaced(Role.class, "thinvol-local-node");
    namespaced(ServiceAccount.class, "thinvol-local-node");
    await("the finalizer", () -> !current().getMetadata().getFinalizers().isEmpty());
    // What the cluster does for a deployed backend: a node pod runs, its resizer leads.
    client.resource(nodePod(backend)).create();
    client
        .resource(
            new LeaseBuilder()
                .withNewMetadata()
                .withName(LEASE)
                .withNamespace(NAMESPACE)
                .endMetadata()
                .withNewSpec()
                .withHolderIdentity(POD)
                .endSpec()
                .build())
        .create();

    client.resources(StorageBackend.class).withName("local").delete();
    StorageBackend waiting =
        await(
            "Progressing/StoppingNodePods",
            () -> {
              StorageBackend now = current();
              return now != null
                      && now.getStatus() != null
                      && now.getStatus().getConditions().stream()
                          .anyMatch(c -> "StoppingNodePods".equals(c.getReason()))
                  ? now
                  : null;
            });
    assertThat(waiting.getStatus().getConditions())
        .extracting(c -> c.getType() + "=" + c.getStatus() + "/" + c.getReason())
        .containsExactlyInAnyOrder(
            "Ready=False/Deleting",
            "Progressing=True/StoppingNodePods",
            "Degraded=False/StoppingNodePods");
    assertThat(waiting.getStatus().getConditions())
        .filteredOn(c -> c.getType().equals("Progressing"))
        .extracting(c -> c.getMessage())
        .containsExactly(
            "the DaemonSet thinvol-local-node is deleted; its permissions are removed once its"
                + " node pods have stopped, 1 still running: "
                + POD
                + " on node-a");
    assertThat(get(DaemonSet.class, "thinvol-local-node")).as("the DaemonSet").isNull();
    // The pod still runs: everything it uses is still there.
    assertThat(get(Role.class, "thinvol-local-node")).as("the Role").isNotNull();
    assertThat(get(RoleBinding.class, "thinvol-local-node")).as("the RoleBinding").isNotNull();
    assertThat(get(ServiceAccount.class, "thinvol-local-node"))
        .as("the ServiceAccount")
        .isNotNull();
    assertThat(get(Lease.class, LEASE)).as("the resizers' Lease").isNotNull();
    assertThat(client.resources(CSIDriver.class).withName("local.thinvol.io").get()).isNotNull();
    assertThat(nodeBindingSubjects()).contains("thinvol-local-node");

    // The kubelet has stopped it.
    client.pods().inNamespace(NAMESPACE).withName(POD).withGracePeriod(0).delete();
    await("the backend to go", () -> current() == null);
    assertThat(get(Role.class, "thinvol-local-node")).as("the Role").isNull();
    assertThat(get(RoleBinding.class, "thinvol-local-node")).as("the RoleBinding").isNull();
    assertThat(get(ServiceAccount.class, "thinvol-local-node")).as("the ServiceAccount").isNull();
    assertThat(get(Lease.class, LEASE)).as("the resizers' Lease").isNull();
    assertThat(client.resources(CSIDriver.class).withName("local.thinvol.io").get()).isNull();
    assertThat(nodeBindingSubjects()).doesNotContain("thinvol-local-node");
    assertThat(eventReasons("local")).contains("Deleted").doesNotContain("NodePodsLingering");
  }

  private StorageBackend current() {
    return client.resources(StorageBackend.class).withName("local").get();
  }

  private <T extends io.fabric8.kubernetes.api.model.HasMetadata> T get(
      Class<T> type, String name) {
    return client.resources(type).inNamespace(NAMESPACE).withName(name).get();
  }

  private List<String> nodeBindingSubjects() {
    ClusterRoleBinding binding =
        client.resources(ClusterRoleBinding.class).withName(Names.NODE_CLUSTER_ROLE_BINDING).get();
    return binding == null || binding.getSubjects() == null
        ? List.of()
        : binding.getSubjects().stream().map(Subject::getName).toList();
  }

  private static Pod nodePod(StorageBackend backend) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(POD)
        .withNamespace(NAMESPACE)
        .withLabels(Names.nodePodLabels(backend))
        .endMetadata()
        .withNewSpec()
        .withNodeName("node-a")
        .withServiceAccountName("thinvol-local-node")
        .addNewContainer()
        .withName("driver")
        .withImage("quay.io/thinvol/thinvol-driver:0.1.0")
        .endContainer()
        .endSpec()
        .build();
  }
}
