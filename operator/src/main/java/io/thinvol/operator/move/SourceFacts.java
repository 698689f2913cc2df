package io.thinvol.operator.move;

import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.thinvol.addons.call.MoveCopier;
import io.thinvol.addons.resolve.DriverEndpoint;
import io.thinvol.api.BackendNames;
import io.thinvol.api.v1alpha1.MovesSpec;
import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.operator.transfer.QuickAnswers;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** What a move reads of its source volume and of the drivers, once it has been accepted. */
final class SourceFacts {

  /**
   * A question a driver answers at once (a space, a drop): quick, or the driver is not answering.
   */
  static final Duration QUICK = QuickAnswers.QUICK;

  /** What {@code spec.moves.maxConcurrentPerNode} is when a backend does not set it. */
  static final int DEFAULT_SLOTS = 2;

  private static final Logger log = LoggerFactory.getLogger(SourceFacts.class);

  private SourceFacts() {}

  /** The old volume; its absence after acceptance is a failure of the move. */
  static PersistentVolume oldVolume(Move move) throws MoveFailure {
    String name = move.status().getSourceVolume();
    return move.cluster()
        .volume(name)
        .orElseThrow(
            () ->
                MoveFailure.failed(
                    "VolumeNotFound", "the claim's PersistentVolume " + name + " is gone"));
  }

  static String driver(PersistentVolume volume) {
    return volume.getSpec().getCsi().getDriver();
  }

  static String backend(PersistentVolume volume) {
    return BackendNames.backendOfDriver(driver(volume)).orElseThrow();
  }

  /** The backend's VolumeSnapshotClass: named like the backend (its default StorageClass). */
  static String snapshotClass(PersistentVolume volume) {
    return backend(volume);
  }

  static int slots(Move move, PersistentVolume volume) {
    return Optional.ofNullable(moves(move, volume).getMaxConcurrentPerNode()).orElse(DEFAULT_SLOTS);
  }

  /** The volume's backend's {@code spec.moves}, empty where it sets none. */
  static MovesSpec moves(Move move, PersistentVolume volume) {
    StorageBackend backend =
        move.cluster().client().resources(StorageBackend.class).withName(backend(volume)).get();
    return Optional.ofNullable(backend)
        .map(StorageBackend::getSpec)
        .map(spec -> spec.getMoves())
        .orElseGet(MovesSpec::new);
  }

  static Optional<DriverEndpoint> endpoint(Move move, PersistentVolume volume, String node) {
    return move.services().endpoints().on(backend(volume), node);
  }

  /** The bytes a volume holds on a node's disk, or empty when the driver does not say. */
  static Optional<Long> allocated(
      Move move, PersistentVolume volume, String node, String volumeId) {
    QuickAnswers.Asked<MoveCopier.VolumeSpace> asked =
        ask(move, volume, node, (copier, driver) -> copier.space(driver, volumeId, QUICK));
    if (asked.failure() != null) {
      log.info(
          "the driver on node {} did not tell the space of {}: {}",
          node,
          volumeId,
          asked.failure());
      return Optional.empty();
    }
    return Optional.of(asked.answer().allocatedBytes());
  }

  /** Asks the backend's driver on {@code node} something it answers at once. */
  static <T> QuickAnswers.Asked<T> ask(
      Move move,
      PersistentVolume volume,
      String node,
      BiFunction<MoveCopier, DriverEndpoint, CompletableFuture<T>> call) {
    return QuickAnswers.ask(move.services().calls().copier(), endpoint(move, volume, node), call);
  }
}
