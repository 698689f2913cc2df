package io.thinvol.api.kube;

import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.NodeSelectorTerm;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.thinvol.api.BackendNames;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/** The nodes a thinvol PersistentVolume's node affinity pins it to (the driver's topology key). */
public final class VolumeNodes {

  private VolumeNodes() {}

  /** Distinct, in the order the affinity names them; empty when it names none. */
  public static List<String> of(PersistentVolume volume) {
    return Optional.ofNullable(volume.getSpec())
        .map(spec -> spec.getNodeAffinity())
        .map(affinity -> affinity.getRequired())
        .map(required -> required.getNodeSelectorTerms())
        .orElse(List.of())
        .stream()
        .map(NodeSelectorTerm::getMatchExpressions)
        .filter(Objects::nonNull)
        .flatMap(List::stream)
        .filter(r -> BackendNames.TOPOLOGY_KEY.equals(r.getKey()) && "In".equals(r.getOperator()))
        .map(NodeSelectorRequirement::getValues)
        .filter(Objects::nonNull)
        .flatMap(List::stream)
        .distinct()
        .toList();
  }
}
