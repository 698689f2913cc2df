package io.thinvol.operator;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.thinvol.addons.ClusterFixtures;
import io.thinvol.api.v1alpha1.MovePhase;
import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.api.v1alpha1.VolumeMove;
import io.thinvol.testing.PlayedControllers;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * What {@link OperatorFootprint} moves: backend {@value #BACKEND} (its own, so that the blocked
 * deletion of b0 does not touch it) whose driver nodes a and b registered, claims {@code move-<i>}
 * bound to volumes on node a, and VolumeMoves of them to node b. No snapshotter runs, so a move
 * that got a copy slot stays in PreCopying waiting for its VolumeSnapshot; the others wait in
 * Pending for a slot.
 */
final class MoveFootprintWorld {

  static final String BACKEND = "moving";

  /** The CRD's maximum: as many moves as a node allows copy at once, the heavier phase. */
  static final int SLOTS_PER_NODE = 16;

  private static final String DRIVER = BACKEND + ".thinvol.io";
  private static final String APPS = "moving-apps";

  private final KubernetesClient client;

  MoveFootprintWorld(KubernetesClient client) {
    this.client = client;
  }

  /** The backend, the two nodes and {@code claims} bound claims on node a. */
  void seed(int claims) {
    client
        .resource(
            Serialization.unmarshal(
                "apiVersion: thinvol.io/v1alpha1\nkind: StorageBackend\nmetadata:\n  name: "
                    + BACKEND
                    + "\nspec:\n  moves:\n    maxConcurrentPerNode: "
                    + SLOTS_PER_NODE
                    + "\n",
                StorageBackend.class))
        .create();
    for (String node : List.of("node-a", "node-b")) {
      client
          .resource(new NodeBuilder().withNewMetadata().withName(node).endMetadata().build())
          .create();
      MockClusterTest.registerDriver(client, node, DRIVER);
    }
    for (int i = 0; i < claims; i++) {
      PersistentVolume volume =
          new PersistentVolumeBuilder(
                  ClusterFixtures.volume(
                      "pv-move-" + i, DRIVER, "vol-move-" + i, "node-a", APPS, "move-" + i))
              .editSpec()
              .withPersistentVolumeReclaimPolicy("Delete")
              .withStorageClassName(BACKEND)
              .endSpec()
              .build();
      PlayedControllers.createWithStatus(client, volume);
      PersistentVolumeClaim claim = ClusterFixtures.claim(APPS, "move-" + i, BACKEND);
      client.resource(claim).create();
      PlayedControllers.bind(client, volume, claim);
    }
  }

  void createMoves(int moves) {
    for (int i = 0; i < moves; i++) {
      client
          .resource(
              Serialization.unmarshal(
                  "apiVersion: thinvol.io/v1alpha1\nkind: VolumeMove\nmetadata:\n  name: move-"
                      + i
                      + "\n  namespace: "
                      + APPS
                      + "\nspec:\n  persistentVolumeClaim: move-"
                      + i
                      + "\n  targetNode: node-b\n",
                  VolumeMove.class))
          .create();
    }
  }

  /**
   * The moves settled: every slot of node a taken by a move waiting for its pre-copy snapshot, the
   * rest Pending for a slot. Anything else (Failed, a refusal) is not a move in flight.
   */
  boolean settled(int moves) {
    List<VolumeMove> all = client.resources(VolumeMove.class).inNamespace(APPS).list().getItems();
    long copying = count(all, MovePhase.PreCopying, "VolumeSnapshot");
    long waiting = count(all, MovePhase.Pending, "waiting for a copy slot");
    return copying == Math.min(moves, SLOTS_PER_NODE) && copying + waiting == moves;
  }

  /** How many moves are in each phase, e.g. {@code PreCopying=16 Pending=84}. */
  String phases() {
    Map<String, Long> byPhase =
        client.resources(VolumeMove.class).inNamespace(APPS).list().getItems().stream()
            .map(m -> m.getStatus() == null ? "none" : String.valueOf(m.getStatus().getPhase()))
            .collect(
                Collectors.groupingBy(Function.identity(), TreeMap::new, Collectors.counting()));
    return byPhase.entrySet().stream()
        .map(e -> e.getKey() + "=" + e.getValue())
        .collect(Collectors.joining(" "));
  }

  private static long count(List<VolumeMove> moves, MovePhase phase, String message) {
    return moves.stream()
        .filter(m -> m.getStatus() != null && m.getStatus().getPhase() == phase)
        .filter(m -> m.getStatus().getMessage() != null)
        .filter(m -> m.getStatus().getMessage().contains(message))
        .count();
  }
}
