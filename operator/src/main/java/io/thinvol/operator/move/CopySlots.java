package io.thinvol.operator.move;

import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.thinvol.api.v1alpha1.MovePhase;
import io.thinvol.api.v1alpha1.VolumeMove;
import java.util.List;
import java.util.Objects;

/**
 * The copy slots of a source node: at most the backend's {@code spec.moves.maxConcurrentPerNode}
 * moves from one node pre-copy or cut over at once (each reads the node's disk and network). A move
 * takes a slot by writing its phase; the check and the write happen under one lock, so that two
 * moves reconciled at once cannot both take the last slot.
 */
final class CopySlots {

  private final KnownMoves moves;

  CopySlots(KnownMoves moves) {
    this.moves = moves;
  }

  /**
   * Takes a slot on {@code node} for {@code move} by running {@code take} (which writes the move's
   * copying phase) if fewer than {@code limit} other moves from the node hold one.
   *
   * @return the moves that hold the slots when none is free, else empty
   */
  synchronized List<String> take(VolumeMove move, String node, int limit, Runnable take) {
    List<String> holders = holders(move, node);
    if (holders.size() >= limit) {
      return holders;
    }
    take.run();
    return List.of();
  }

  /** The moves of a node that may wait for a slot, to wake when one frees. */
  List<ResourceID> waiting(String node) {
    return moves
        .all()
        .filter(m -> m.getStatus() != null && node.equals(m.getStatus().getSourceNode()))
        .filter(
            m ->
                m.getStatus().getPhase() == MovePhase.Pending
                    || m.getStatus().getPhase() == MovePhase.WaitingForCutOver)
        .map(ResourceID::fromResource)
        .toList();
  }

  private List<String> holders(VolumeMove move, String node) {
    return moves
        .all()
        .filter(m -> !Objects.equals(m.getMetadata().getUid(), move.getMetadata().getUid()))
        .filter(m -> m.getStatus() != null && node.equals(m.getStatus().getSourceNode()))
        .filter(m -> MoveStatusModel.COPYING.contains(m.getStatus().getPhase()))
        .map(m -> m.getMetadata().getNamespace() + "/" + m.getMetadata().getName())
        .sorted()
        .toList();
  }
}
