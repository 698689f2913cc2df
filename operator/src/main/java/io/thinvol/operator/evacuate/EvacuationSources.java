package io.thinvol.operator.evacuate;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import io.thinvol.api.v1alpha1.VolumeMove;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * What the evacuation reads, from informers whose events reach the nodes concerned: every
 * PersistentVolume (a thinvol one reaches the node it is pinned to: a volume made there while the
 * node is annotated gets its move) and every VolumeMove (an evacuation's reaches its node; any
 * other reaches the node of its claim's volume, whose evacuation waits for it to end).
 */
final class EvacuationSources {

  private static final String BY_NODE = "node";
  private static final String BY_CLAIM = "claim";

  private final InformerEventSource<PersistentVolume, Node> volumes;
  private final InformerEventSource<VolumeMove, Node> moves;

  private EvacuationSources(
      InformerEventSource<PersistentVolume, Node> volumes,
      InformerEventSource<VolumeMove, Node> moves) {
    this.volumes = volumes;
    this.moves = moves;
  }

  static EvacuationSources register(EventSourceContext<Node> context) {
    InformerEventSource<PersistentVolume, Node> volumes =
        new InformerEventSource<>(
            InformerEventSourceConfiguration.from(PersistentVolume.class, Node.class)
                .withName("evacuation-volumes")
                .withSecondaryToPrimaryMapper(volume -> nodes(NodeVolumes.nodesOf(volume).stream()))
                .build(),
            context);
    volumes.addIndexers(
        Map.of(
            BY_NODE,
            NodeVolumes::nodesOf,
            BY_CLAIM,
            volume ->
                NodeVolumes.claim(volume)
                    .filter(claim -> !NodeVolumes.nodesOf(volume).isEmpty())
                    .map(claim -> List.of(key(claim.getNamespace(), claim.getName())))
                    .orElse(List.of())));
    InformerEventSource<VolumeMove, Node> moves =
        new InformerEventSource<>(
            InformerEventSourceConfiguration.from(VolumeMove.class, Node.class)
                .withName("evacuation-moves")
                .withSecondaryToPrimaryMapper(
                    move ->
                        nodes(
                            EvacuationMoves.nodeOf(move)
                                .map(Stream::of)
                                .orElseGet(
                                    () ->
                                        volumes.byIndex(BY_CLAIM, claimKey(move)).stream()
                                            .flatMap(v -> NodeVolumes.nodesOf(v).stream()))))
                .build(),
            context);
    moves.addIndexers(
        Map.of(
            BY_NODE, move -> EvacuationMoves.nodeOf(move).stream().toList(),
            BY_CLAIM, move -> List.of(claimKey(move))));
    return new EvacuationSources(volumes, moves);
  }

  List<EventSource<?, Node>> eventSources() {
    return List.of(volumes, moves);
  }

  /** The thinvol volumes pinned to the node, whatever their phase. */
  List<PersistentVolume> volumesOn(String node) {
    return volumes.byIndex(BY_NODE, node);
  }

  /** The moves the node's evacuation made, whatever their phase. */
  List<VolumeMove> movesOf(String node) {
    return moves.byIndex(BY_NODE, node);
  }

  Optional<VolumeMove> move(String namespace, String name) {
    return moves.get(new ResourceID(name, namespace));
  }

  /** A move other than {@code node}'s evacuation's, not ended, that moves the claim. */
  Optional<VolumeMove> otherMoveOf(ObjectReference claim, String node) {
    return moves.byIndex(BY_CLAIM, key(claim.getNamespace(), claim.getName())).stream()
        .filter(move -> !EvacuationMoves.ended(move))
        .filter(move -> !node.equals(EvacuationMoves.nodeOf(move).orElse(null)))
        .findFirst();
  }

  private static Set<ResourceID> nodes(Stream<String> names) {
    return names.map(ResourceID::new).collect(Collectors.toSet());
  }

  private static String claimKey(VolumeMove move) {
    String claim = move.getSpec() == null ? null : move.getSpec().getPersistentVolumeClaim();
    return key(move.getMetadata().getNamespace(), claim);
  }

  private static String key(String namespace, String claim) {
    return namespace + "/" + claim;
  }
}
