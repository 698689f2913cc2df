package io.thinvol.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.storage.CSINode;
import io.fabric8.kubernetes.api.model.storage.StorageClass;
import io.thinvol.e2e.support.Names;
import io.thinvol.e2e.support.NodePods;
import io.thinvol.e2e.support.OlmBundle;
import io.thinvol.e2e.support.Resources;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/** The operator installed as OLM would, and the first StorageBackend of docs/install.md. */
@Order(1)
class InstallTest extends E2eSteps {

  private static final List<String> SNAPSHOT_CRDS =
      List.of(
          "volumesnapshots.snapshot.storage.k8s.io",
          "volumesnapshotcontents.snapshot.storage.k8s.io",
          "volumesnapshotclasses.snapshot.storage.k8s.io",
          "volumegroupsnapshots.groupsnapshot.storage.k8s.io",
          "volumegroupsnapshotcontents.groupsnapshot.storage.k8s.io",
          "volumegroupsnapshotclasses.groupsnapshot.storage.k8s.io");
  private static final Duration READY_LIMIT = Duration.ofMinutes(4);

  @Test
  @Order(1)
  @DisplayName("operator installed from bundle/manifests as OLM would")
  void operator() {
    // docs/install.md's requirement for snapshots; the operator reads the APIs at its start.
    List<String> missing =
        SNAPSHOT_CRDS.stream()
            .filter(
                n ->
                    client().apiextensions().v1().customResourceDefinitions().withName(n).get()
                        == null)
            .toList();
    assertThat(missing)
        .as(
            "snapshot CRDs missing: install them and a snapshot-controller as docs/install.md says (e2e/run-on-kit.sh does)")
        .isEmpty();
    long start = System.nanoTime();
    OlmBundle.Installed installed =
        new OlmBundle(kube(), world().settings().repository())
            .install(world().settings().image(), world().settings().driverImage());
    world().remember("operator.deployment", installed.deployment());
    figure(
        installed.crds()
            + " CRDs, "
            + installed.clusterRules()
            + " cluster and "
            + installed.namespaceRules()
            + " namespace rules; operator available in "
            + seconds(start));
  }

  @Test
  @Order(2)
  @DisplayName("StorageBackend -> node pod Ready")
  void backend() {
    world().require("operator.deployment");
    kube()
        .apply(new NamespaceBuilder().withNewMetadata().withName(Names.APPS).endMetadata().build());
    long start = System.nanoTime();
    kube()
        .apply(
            "storagebackend.yaml",
            vars(
                "name",
                Names.BACKEND,
                "dataDir",
                Names.DATA_DIR.toString(),
                "ext4Class",
                Names.EXT4_CLASS,
                "xfsClass",
                Names.XFS_CLASS));
    GenericKubernetesResource backend = awaitBackendReady(Names.BACKEND, READY_LIMIT);
    String readyIn = seconds(start);

    List<Pod> nodePods = NodePods.all(client());
    assertThat(nodePods)
        .as("a node pod on each node")
        .hasSize(client().nodes().list().getItems().size());
    List<ContainerStatus> containers =
        nodePods.stream().flatMap(p -> p.getStatus().getContainerStatuses().stream()).toList();
    assertThat(containers).allMatch(ContainerStatus::getReady);
    assertThat(field(backend, "status", "driverName")).contains(Names.DRIVER);
    assertThat(client().storage().v1().csiDrivers().withName(Names.DRIVER).get()).isNotNull();
    for (String name : List.of(Names.EXT4_CLASS, Names.XFS_CLASS)) {
      StorageClass storageClass = client().storage().v1().storageClasses().withName(name).get();
      assertThat(storageClass.getProvisioner()).isEqualTo(Names.DRIVER);
      assertThat(storageClass.getVolumeBindingMode()).isEqualTo("WaitForFirstConsumer");
    }
    assertThat(get(Resources.VOLUME_SNAPSHOT_CLASS, null, Names.BACKEND)).isNotNull();
    assertThat(get(Resources.VOLUME_GROUP_SNAPSHOT_CLASS, null, Names.BACKEND)).isNotNull();
    for (Pod nodePod : nodePods) {
      CSINode csiNode =
          client().storage().v1().csiNodes().withName(nodePod.getSpec().getNodeName()).get();
      assertThat(csiNode.getSpec().getDrivers()).anyMatch(d -> d.getName().equals(Names.DRIVER));
    }
    String node = world().settings().hostNode();
    kube().awaitEvent("StorageBackend", null, Names.BACKEND, "Ready", Duration.ofSeconds(30));
    kube().describe("storagebackend", null, Names.BACKEND);

    world().remember("backend.ready", "true");
    world().remember("node", node);
    figure(
        "Ready in "
            + readyIn
            + "; "
            + nodePods.size()
            + " node pod(s), containers "
            + containers.stream().filter(ContainerStatus::getReady).count()
            + "/"
            + containers.size()
            + " Ready; Event Ready; 2 StorageClasses, VolumeSnapshotClass, VolumeGroupSnapshotClass");
  }
}
