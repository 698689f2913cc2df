package io.thinvol.operator.nodeloss;

import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.thinvol.api.kube.VolumeNodes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Stream;

/** Which of a backend's bound volumes are on lost nodes, by node, in a stable order. */
final class LostVolumes {

  private LostVolumes() {}

  /**
   * @param volumes the backend's PersistentVolumes
   * @param health the health of a node by name
   * @return the claims on each lost node, nodes and claims sorted by name
   */
  static Map<String, List<LostClaim>> of(
      Stream<PersistentVolume> volumes, Function<String, NodeHealth> health) {
    Map<String, List<LostClaim>> byNode = new TreeMap<>();
    Map<String, NodeHealth> seen = new TreeMap<>();
    volumes
        .filter(volume -> volume.getMetadata().getDeletionTimestamp() == null)
        .forEach(
            volume ->
                LostClaim.boundClaim(volume)
                    .ifPresent(
                        claim -> {
                          for (String node : VolumeNodes.of(volume)) {
                            NodeHealth state = seen.computeIfAbsent(node, health);
                            if (state.lost()) {
                              byNode
                                  .computeIfAbsent(node, n -> new ArrayList<>())
                                  .add(
                                      new LostClaim(
                                          claim.getNamespace(),
                                          claim.getName(),
                                          claim.getUid(),
                                          volume.getMetadata().getName(),
                                          node,
                                          state));
                            }
                          }
                        }));
    byNode.values().forEach(claims -> claims.sort(Comparator.comparing(LostClaim::qualified)));
    return byNode;
  }
}
