package io.thinvol.operator.move;

import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.grpc.Status;
import io.thinvol.operator.transfer.QuickAnswers;
import java.time.Duration;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Before a rollback removes the temporaries: the volume the target's driver may have made for the
 * move without the move ever learning it (the operator restarted while the copy ran, and no new
 * copy was asked), dropped there by its name and S2. A copy whose answer the move holds is
 * discarded through its PersistentVolume instead; without S2 no copy was asked.
 */
final class UnrecordedCopy {

  private static final Logger log = LoggerFactory.getLogger(UnrecordedCopy.class);

  /** How soon to ask again while the copy still runs on the target. */
  static final Duration WHILE_RUNNING = Duration.ofSeconds(5);

  private UnrecordedCopy() {}

  /**
   * @return when to look again while the copy still runs there, else null
   */
  static Duration drop(Move move, PersistentVolume old) {
    if (move.status().getTargetVolumeHandle() != null) {
      return null;
    }
    MoveNames names = move.names();
    Optional<String> s2 =
        move.cluster().snapshotContent(names.cut()).flatMap(SnapshotObjects::importedHandle);
    if (s2.isEmpty()) {
      return null;
    }
    String node = move.status().getTargetNode();
    QuickAnswers.Asked<Boolean> asked =
        SourceFacts.ask(
            move,
            old,
            node,
            (copier, driver) ->
                copier.dropVolume(driver, names.newVolume(), s2.get(), SourceFacts.QUICK));
    if (asked.failure() == null) {
      if (asked.answer()) {
        log.info("dropped the copy {} the move never recorded on node {}", names.newVolume(), node);
      }
      return null;
    }
    if (asked.failure().getCode() == Status.Code.ABORTED) {
      move.message(
          "rolling back: the claim is bound to its old volume again; waiting for the copy still"
              + " running on node "
              + node
              + " to end, to delete what it made");
      move.save();
      return WHILE_RUNNING;
    }
    move.warning(
        "CopyLeft",
        "could not ask the driver on node "
            + node
            + " to delete the copy "
            + names.newVolume()
            + " ("
            + asked.failure()
            + "); if it made one, it stays in that node's data dir until deleted");
    return null;
  }
}
