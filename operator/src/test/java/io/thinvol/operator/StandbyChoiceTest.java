package io.thinvol.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.storage.CSIStorageCapacityBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.thinvol.api.BackendNames;
import io.thinvol.api.v1alpha1.VolumeMove;
import io.thinvol.operator.transfer.TargetChoice;
import io.thinvol.testing.TestCluster;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Where a replica goes when the class names no node (docs/replication.md "Set up"): a node in
 * another zone than the primary's before any node of its zone, the most capacity among equals, only
 * nodes with the class's labels, never the primary's node nor one that cannot take volumes.
 */
class StandbyChoiceTest {

  private static final String DRIVER = "local.thinvol.io";
  private static final String CLASS = "local";
  private static final String NAMESPACE = "thinvol-system";

  private TestCluster cluster;
  private KubernetesClient client;
  private TargetChoice choice;

  @BeforeEach
  void start() {
    cluster = TestCluster.start();
    client = cluster.admin();
    cluster.namespace(NAMESPACE);
    choice = new TargetChoice(client, NAMESPACE);
  }

  @AfterEach
  void stop() {
    cluster.close();
  }

  @Test
  @DisplayName("another zone than the primary's wins over more capacity in the primary's zone")
  void anotherZoneFirst() {
    node("node-a", "zone-1", "10Gi");
    node("node-b", "zone-1", "50Gi");
    node("node-c", "zone-2", "5Gi");

    assertThat(choice.chooseStandby("node-a", DRIVER, CLASS, Map.of())).contains("node-c");
  }

  @Test
  @DisplayName("without zones, the node with the most capacity; ties go to the first name")
  void mostCapacityWithoutZones() {
    node("node-a", null, "10Gi");
    node("node-b", null, "5Gi");
    node("node-c", null, "50Gi");
    node("node-d", null, "50Gi");

    assertThat(choice.chooseStandby("node-a", DRIVER, CLASS, Map.of())).contains("node-c");
  }

  @Test
  @DisplayName("only nodes with the class's labels, even in the primary's zone")
  void theClassesLabels() {
    node("node-a", "zone-1", "10Gi");
    node("node-b", "zone-1", "5Gi", Map.of("storage", "replicas"));
    node("node-c", "zone-2", "50Gi");

    assertThat(choice.chooseStandby("node-a", DRIVER, CLASS, Map.of("storage", "replicas")))
        .contains("node-b");
    assertThat(choice.chooseStandby("node-a", DRIVER, CLASS, Map.of("storage", "none"))).isEmpty();
  }

  @Test
  @DisplayName("never a node that is NotReady, cordoned, being evacuated or without the driver")
  void onlyNodesThatTakeVolumes() {
    node("node-a", "zone-1", "10Gi");
    node("node-b", "zone-2", "50Gi");
    VolumeReplications.ready(client, "node-b", false);
    node("node-c", "zone-2", "50Gi");
    client
        .nodes()
        .withName("node-c")
        .edit(n -> new NodeBuilder(n).editSpec().withUnschedulable(true).endSpec().build());
    node("node-d", "zone-2", "50Gi", Map.of(), Map.of(VolumeMove.EVACUATE, "true"));
    client
        .resource(new NodeBuilder().withNewMetadata().withName("node-e").endMetadata().build())
        .create();
    VolumeReplications.ready(client, "node-e", true);

    assertThat(choice.chooseStandby("node-a", DRIVER, CLASS, Map.of())).isEmpty();

    node("node-f", "zone-1", "1Gi");
    assertThat(choice.chooseStandby("node-a", DRIVER, CLASS, Map.of())).contains("node-f");
  }

  private void node(String name, String zone, String capacity) {
    node(name, zone, capacity, Map.of());
  }

  private void node(String name, String zone, String capacity, Map<String, String> labels) {
    node(name, zone, capacity, labels, Map.of());
  }

  private void node(
      String name,
      String zone,
      String capacity,
      Map<String, String> labels,
      Map<String, String> annotations) {
    Map<String, String> all = new HashMap<>(labels);
    if (zone != null) {
      all.put(TargetChoice.ZONE, zone);
    }
    client
        .resource(
            new NodeBuilder()
                .withNewMetadata()
                .withName(name)
                .withLabels(all)
                .withAnnotations(annotations)
                .endMetadata()
                .build())
        .create();
    VolumeReplications.ready(client, name, true);
    MockClusterTest.registerDriver(client, name, DRIVER);
    client
        .resource(
            new CSIStorageCapacityBuilder()
                .withNewMetadata()
                .withName("capacity-" + name)
                .withNamespace(NAMESPACE)
                .endMetadata()
                .withStorageClassName(CLASS)
                .withNodeTopology(
                    new LabelSelectorBuilder()
                        .withMatchLabels(Map.of(BackendNames.TOPOLOGY_KEY, name))
                        .build())
                .withCapacity(new Quantity(capacity))
                .build())
        .create();
  }
}
