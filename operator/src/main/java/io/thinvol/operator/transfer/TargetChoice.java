package io.thinvol.operator.transfer;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.storage.CSINode;
import io.fabric8.kubernetes.api.model.storage.CSIStorageCapacity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.thinvol.api.BackendNames;
import io.thinvol.api.v1alpha1.VolumeMove;
import io.thinvol.operator.nodeloss.NodeHealth;
import java.math.BigDecimal;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Where a move without a target goes, or a replica: a node whose kubelet registered the claim's
 * driver, other than the source, schedulable, Ready and not being evacuated, with the most capacity
 * the driver publishes for the claim's StorageClass (CSIStorageCapacity); ties go to the first
 * name. A replica's standby may further have to carry some labels, and prefers another zone.
 */
public final class TargetChoice {

  /** The zone label, which a standby prefers to differ from its primary's. */
  public static final String ZONE = "topology.kubernetes.io/zone";

  private final KubernetesClient client;
  private final String driverNamespace;

  public TargetChoice(KubernetesClient client, String driverNamespace) {
    this.client = client;
    this.driverNamespace = driverNamespace;
  }

  /** Whether the node's kubelet registered the driver (its CSINode lists it). */
  public boolean serves(String node, String driver) {
    CSINode csiNode = client.storage().v1().csiNodes().withName(node).get();
    return csiNode != null
        && csiNode.getSpec() != null
        && csiNode.getSpec().getDrivers() != null
        && csiNode.getSpec().getDrivers().stream().anyMatch(d -> driver.equals(d.getName()));
  }

  public Optional<String> choose(String source, String driver, String storageClass) {
    return choose(source, driver, storageClass, Map.of(), null);
  }

  /**
   * A standby for a replica of the source's volume: a node with every label of {@code labels}, in
   * another zone than the source's if one can take it, then as {@link #choose}.
   */
  public Optional<String> chooseStandby(
      String source, String driver, String storageClass, Map<String, String> labels) {
    return choose(
        source, driver, storageClass, labels, zone(client.nodes().withName(source).get()));
  }

  private Optional<String> choose(
      String source,
      String driver,
      String storageClass,
      Map<String, String> labels,
      String sourceZone) {
    Map<String, BigDecimal> capacity = capacities(storageClass);
    return client.storage().v1().csiNodes().list().getItems().stream()
        .filter(
            n ->
                n.getSpec() != null
                    && n.getSpec().getDrivers() != null
                    && n.getSpec().getDrivers().stream().anyMatch(d -> driver.equals(d.getName())))
        .map(n -> n.getMetadata().getName())
        .filter(name -> !name.equals(source))
        .map(name -> client.nodes().withName(name).get())
        .filter(node -> node != null && takesVolumes(node) && hasLabels(node, labels))
        .sorted(
            Comparator.comparing((Node node) -> sourceZone != null && sourceZone.equals(zone(node)))
                .thenComparing(
                    node -> capacity.getOrDefault(node.getMetadata().getName(), BigDecimal.ZERO),
                    Comparator.reverseOrder())
                .thenComparing(node -> node.getMetadata().getName()))
        .map(node -> node.getMetadata().getName())
        .findFirst();
  }

  private static String zone(Node node) {
    return node == null || node.getMetadata().getLabels() == null
        ? null
        : node.getMetadata().getLabels().get(ZONE);
  }

  private static boolean hasLabels(Node node, Map<String, String> labels) {
    Map<String, String> has =
        node.getMetadata().getLabels() == null ? Map.of() : node.getMetadata().getLabels();
    return labels.entrySet().stream()
        .allMatch(wanted -> wanted.getValue().equals(has.get(wanted.getKey())));
  }

  private static boolean takesVolumes(Node node) {
    boolean unschedulable =
        node.getSpec() != null && Boolean.TRUE.equals(node.getSpec().getUnschedulable());
    boolean evacuating =
        node.getMetadata().getAnnotations() != null
            && "true".equals(node.getMetadata().getAnnotations().get(VolumeMove.EVACUATE));
    return !unschedulable && !evacuating && NodeHealth.of(Optional.of(node)).ready();
  }

  /** The capacity published for the class, by node (the topology's node label). */
  private Map<String, BigDecimal> capacities(String storageClass) {
    Map<String, BigDecimal> byNode = new java.util.HashMap<>();
    List<CSIStorageCapacity> all =
        client.storage().v1().csiStorageCapacities().inNamespace(driverNamespace).list().getItems();
    for (CSIStorageCapacity c : all) {
      if (!java.util.Objects.equals(storageClass, c.getStorageClassName())
          || c.getNodeTopology() == null
          || c.getNodeTopology().getMatchLabels() == null) {
        continue;
      }
      String node = c.getNodeTopology().getMatchLabels().get(BackendNames.TOPOLOGY_KEY);
      Quantity quantity = c.getCapacity();
      if (node != null && quantity != null) {
        byNode.merge(node, Quantity.getAmountInBytes(quantity), BigDecimal::max);
      }
    }
    return byNode;
  }
}
