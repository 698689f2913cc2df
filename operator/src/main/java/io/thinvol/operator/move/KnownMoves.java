package io.thinvol.operator.move;

import io.thinvol.api.v1alpha1.VolumeMove;
import java.util.Comparator;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.stream.Stream;

/** Every VolumeMove the operator's cache holds, filled once the controller's informer runs. */
final class KnownMoves {

  private volatile Supplier<Stream<VolumeMove>> moves = Stream::empty;

  void readFrom(Supplier<Stream<VolumeMove>> moves) {
    this.moves = moves;
  }

  Stream<VolumeMove> all() {
    return moves.get();
  }

  /**
   * The move that has the claim before this one: another move of the same claim, not ended, made
   * earlier (by creation time, then by name). The older one wins.
   */
  Optional<VolumeMove> olderOfSameClaim(VolumeMove move) {
    Comparator<VolumeMove> age =
        Comparator.comparing((VolumeMove m) -> m.getMetadata().getCreationTimestamp())
            .thenComparing(m -> m.getMetadata().getName());
    return all()
        .filter(m -> m.getMetadata().getNamespace().equals(move.getMetadata().getNamespace()))
        .filter(m -> !Objects.equals(m.getMetadata().getUid(), move.getMetadata().getUid()))
        .filter(m -> m.getSpec() != null)
        .filter(
            m ->
                Objects.equals(
                    m.getSpec().getPersistentVolumeClaim(),
                    move.getSpec().getPersistentVolumeClaim()))
        .filter(m -> !MoveStatusModel.ended(m))
        .filter(m -> m.getMetadata().getDeletionTimestamp() == null)
        .filter(m -> age.compare(m, move) < 0)
        .min(age);
  }
}
