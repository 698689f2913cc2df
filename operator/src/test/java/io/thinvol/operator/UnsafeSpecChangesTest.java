package io.thinvol.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.thinvol.addons.ClusterFixtures;
import io.thinvol.api.kube.Conditions;
import io.thinvol.api.v1alpha1.SparseFileSpec;
import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.operator.model.StatusModel;
import java.util.Map;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/**
 * Spec changes that would strand volumes are refused with a condition and an Event, and nothing is
 * rolled out: a data directory other than the first deploy's (also when the first deploy took the
 * default), and a node selector that drops nodes holding volumes.
 */
class UnsafeSpecChangesTest extends MockClusterTest {

  @Test
  void aBackendCreatedWithoutDataDirCannotBeGivenAnotherOne() {
    apply("metadata:\n  name: dd\nspec:\n  volumeSnapshotClass: true\n"); // no dataDir
    DaemonSet deployed = namespaced(DaemonSet.class, "thinvol-dd-node");
    StorageBackend recorded =
        await(
            "status.dataDir",
            () -> {
              StorageBackend now = client.resources(StorageBackend.class).withName("dd").get();
              return now.getStatus() != null && now.getStatus().getDataDir() != null ? now : null;
            });
    assertThat(recorded.getStatus().getDataDir()).isEqualTo("/var/lib/thinvol/dd");

    editSpec("dd", spec -> spec.setSparseFile(sparse("/srv/thinvol")));
    Condition refused = awaitDegraded("dd", c -> c.getReason().equals("DataDirChanged"));
    assertThat(refused.getMessage())
        .contains("/srv/thinvol", "/var/lib/thinvol/dd", "remove spec.sparseFile.dataDir");
    await("a Degraded Event", () -> eventReasons("dd").contains("Degraded"));
    assertThat(client.apps().daemonSets().inNamespace(NAMESPACE).withName("thinvol-dd-node").get())
        .as("nothing rolled out")
        .extracting(d -> d.getMetadata().getGeneration())
        .isEqualTo(deployed.getMetadata().getGeneration());

    // As the message says: without the field, the default is the recorded directory again.
    editSpec("dd", spec -> spec.setSparseFile(null));
    awaitDegraded("dd", c -> !c.getReason().equals("DataDirChanged"));
    // Naming the directory it already uses is no change.
    editSpec("dd", spec -> spec.setSparseFile(sparse("/var/lib/thinvol/dd")));
    awaitDegraded("dd", c -> !c.getReason().equals("DataDirChanged"));
  }

  @Test
  void aNodeSelectorThatDropsNodesWithVolumesIsRefusedNamingThem() {
    node("n1", Map.of("disk", "fast", "zone", "a"));
    node("n2", Map.of("disk", "fast", "zone", "b"));
    node("n3", Map.of("disk", "fast", "zone", "b"));
    apply("metadata:\n  name: ns\nspec:\n  nodeSelector:\n    disk: fast\n");
    namespaced(DaemonSet.class, "thinvol-ns-node");
    client
        .resource(ClusterFixtures.volume("pv-1", "ns.thinvol.io", "vol-1", "n2", "apps", "c1"))
        .create();

    editSpec("ns", spec -> spec.setNodeSelector(Map.of("disk", "fast", "zone", "a")));
    Condition refused =
        awaitDegraded("ns", c -> c.getReason().equals("NodesWithVolumesUnselected"));
    assertThat(refused.getMessage()).contains("[n2]").doesNotContain("n3");
    await("a Degraded Event", () -> eventReasons("ns").contains("Degraded"));
    assertThat(
            client
                .apps()
                .daemonSets()
                .inNamespace(NAMESPACE)
                .withName("thinvol-ns-node")
                .get()
                .getSpec()
                .getTemplate()
                .getSpec()
                .getNodeSelector())
        .as("the driver stays where the volumes are")
        .doesNotContainKey("zone");

    // A selector that keeps n2 is fine, even if it drops n1, which holds no volume.
    editSpec("ns", spec -> spec.setNodeSelector(Map.of("disk", "fast", "zone", "b")));
    awaitDegraded("ns", c -> !c.getReason().equals("NodesWithVolumesUnselected"));
  }

  private static SparseFileSpec sparse(String dataDir) {
    SparseFileSpec sparse = new SparseFileSpec();
    sparse.setDataDir(dataDir);
    return sparse;
  }

  private void node(String name, Map<String, String> labels) {
    client
        .resource(
            new NodeBuilder()
                .withNewMetadata()
                .withName(name)
                .withLabels(labels)
                .endMetadata()
                .build())
        .create();
  }

  /** The Degraded condition once it matches, at the current generation. */
  private Condition awaitDegraded(String name, Predicate<Condition> matching) {
    return await(
        "Degraded matching on " + name,
        () -> {
          StorageBackend now = client.resources(StorageBackend.class).withName(name).get();
          if (now.getStatus() == null
              || !now.getMetadata()
                  .getGeneration()
                  .equals(now.getStatus().getObservedGeneration())) {
            return null;
          }
          return Conditions.find(now.getStatus().getConditions(), StatusModel.DEGRADED)
              .filter(matching)
              .orElse(null);
        });
  }
}
