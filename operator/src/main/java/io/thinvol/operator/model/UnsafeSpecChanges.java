package io.thinvol.operator.model;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.thinvol.api.kube.VolumeNodes;
import io.thinvol.api.v1alpha1.StorageBackend;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * Spec changes that would strand volumes, refused before anything is deployed: a data directory
 * other than the one the driver was first deployed with (every driver would restart on an empty
 * catalog), and a node selector that no longer selects a node holding volumes (its driver would be
 * removed). The condition reason says which.
 */
public final class UnsafeSpecChanges {

  /** A refused change: a condition reason and the message a person acts on. */
  public record Problem(String reason, String message) {}

  private UnsafeSpecChanges() {}

  /**
   * @param volumes the backend's PersistentVolumes
   * @param nodes the cluster's Nodes by name (absent: no such node)
   */
  public static Optional<Problem> of(
      StorageBackend backend,
      Stream<PersistentVolume> volumes,
      Function<String, Optional<Node>> nodes) {
    Effective effective = Effective.of(backend);
    String recorded = StatusModel.recordedDataDir(backend);
    if (recorded != null && !recorded.equals(effective.dataDir())) {
      return Optional.of(
          new Problem(
              "DataDirChanged",
              "spec.sparseFile.dataDir would move the data directory to "
                  + effective.dataDir()
                  + ", but the driver was deployed with "
                  + recorded
                  + " (status.dataDir), where the volumes are; remove spec.sparseFile.dataDir"
                  + " or set it to "
                  + recorded
                  + " (moving volumes is not supported)"));
    }
    Set<String> stranded = new TreeSet<>();
    volumes
        .flatMap(volume -> VolumeNodes.of(volume).stream())
        .distinct()
        .forEach(
            name ->
                nodes
                    .apply(name)
                    .filter(node -> !selects(effective.nodeSelector(), node))
                    .ifPresent(node -> stranded.add(name)));
    if (!stranded.isEmpty()) {
      return Optional.of(
          new Problem(
              "NodesWithVolumesUnselected",
              "spec.nodeSelector no longer selects nodes "
                  + stranded
                  + " that hold volumes of this backend; their driver would be removed and the"
                  + " volumes stranded. Move or delete those volumes first, or select the nodes"
                  + " again"));
    }
    return Optional.empty();
  }

  private static boolean selects(Map<String, String> selector, Node node) {
    Map<String, String> labels =
        Optional.ofNullable(node.getMetadata().getLabels()).orElse(Map.of());
    return selector.entrySet().stream()
        .allMatch(e -> Objects.equals(labels.get(e.getKey()), e.getValue()));
  }
}
