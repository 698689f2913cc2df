package io.thinvol.operator.evacuate;

import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.thinvol.api.v1alpha1.MovePhase;
import io.thinvol.api.v1alpha1.VolumeMove;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * What the evacuation of a node annotated {@code true} does next, from what the caches hold: the
 * moves to make, and whether it is over. Pure, so that every case is a unit test.
 *
 * @param create moves of volumes that have none yet
 * @param movedByOthers the moves (not the evacuation's) that move the claim of one of the node's
 *     volumes: each volume is left to its move, and looked at again when that one ends
 * @param nameTaken volumes for which a move of the evacuation's name exists that it did not make
 * @param ours every move this node's evacuation made, as the cache holds them
 */
record EvacuationPlan(
    List<VolumeMove> create,
    List<VolumeMove> movedByOthers,
    List<String> nameTaken,
    List<VolumeMove> ours) {

  /**
   * @param node the node annotated {@code thinvol.io/evacuate=true}
   * @param volumes the volumes pinned to it (those {@link NodeVolumes#toMove} are moved)
   * @param ours the moves its evacuation made
   * @param named a move by namespace and name, whoever made it
   * @param otherMoveOf the move of a claim that is not the evacuation's and has not ended
   */
  static EvacuationPlan of(
      String node,
      List<PersistentVolume> volumes,
      List<VolumeMove> ours,
      BiFunction<String, String, Optional<VolumeMove>> named,
      Function<ObjectReference, Optional<VolumeMove>> otherMoveOf) {
    List<VolumeMove> create = new ArrayList<>();
    List<VolumeMove> movedByOthers = new ArrayList<>();
    List<String> nameTaken = new ArrayList<>();
    for (PersistentVolume volume : volumes) {
      Optional<ObjectReference> claim = NodeVolumes.claim(volume);
      if (!NodeVolumes.toMove(volume, node) || claim.isEmpty()) {
        continue;
      }
      String namespace = claim.get().getNamespace();
      String name = EvacuationMoves.name(volume);
      Optional<VolumeMove> existing = named.apply(namespace, name);
      if (existing.isPresent()) {
        // ours whatever its state: a Failed one stays until someone deletes it (to try again)
        if (!node.equals(EvacuationMoves.nodeOf(existing.get()).orElse(null))) {
          nameTaken.add(namespace + "/" + name);
        }
        continue;
      }
      Optional<VolumeMove> other = otherMoveOf.apply(claim.get());
      if (other.isPresent()) {
        movedByOthers.add(other.get());
      } else {
        create.add(EvacuationMoves.of(volume, claim.get(), node));
      }
    }
    return new EvacuationPlan(
        List.copyOf(create), List.copyOf(movedByOthers), List.copyOf(nameTaken), List.copyOf(ours));
  }

  /** The volumes still to move: the moves to make and those of the evacuation not ended. */
  int toMove() {
    return create.size() + (int) ours.stream().filter(m -> !EvacuationMoves.ended(m)).count();
  }

  /**
   * Nothing is left on the node to move and every move the evacuation made succeeded (a node with
   * no thinvol volume at all is evacuated at once).
   */
  boolean evacuated() {
    return create.isEmpty()
        && movedByOthers.isEmpty()
        && nameTaken.isEmpty()
        && ours.stream().allMatch(m -> EvacuationMoves.in(m, MovePhase.Succeeded));
  }

  /** The evacuation's moves that failed: each holds the evacuation up until someone acts. */
  List<VolumeMove> failed() {
    return ours.stream().filter(m -> EvacuationMoves.in(m, MovePhase.Failed)).toList();
  }

  /** The moves to take back when the evacuation stops: not deleted yet, not cutting over. */
  static List<VolumeMove> withdraw(List<VolumeMove> ours) {
    return ours.stream()
        .filter(m -> m.getMetadata().getDeletionTimestamp() == null)
        .filter(EvacuationMoves::withdrawable)
        .toList();
  }
}
