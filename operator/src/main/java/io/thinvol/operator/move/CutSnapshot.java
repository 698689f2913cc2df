package io.thinvol.operator.move;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.grpc.Status;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.thinvol.addons.call.MoveCopier.SnapshotOf;
import io.thinvol.addons.call.MoveCopier.Taken;
import io.thinvol.addons.resolve.DriverEndpoint;
import io.thinvol.operator.model.ImportedSnapshot;
import io.thinvol.operator.transfer.QuickAnswers;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * S2, the cut-over's snapshot of the old volume, once the claim is gone: taken by the source node's
 * driver when the operator asks it (MoveCopy/Snapshot), then imported into the snapshot API ({@link
 * ImportedSnapshot}) so that the claim entitled to the copy can name it and deleting it deletes S2
 * on its node. The snapshot API cannot take it: a dynamic snapshot needs the claim, and the
 * snapshot-controller binds no pre-provisioned content that names a volume.
 */
final class CutSnapshot {

  private static final Logger log = LoggerFactory.getLogger(CutSnapshot.class);

  /**
   * @param handle S2's snapshot handle once its VolumeSnapshot is ready, else null
   * @param lookAgain while not ready: when to look again
   */
  record State(String handle, Duration lookAgain) {
    static State waiting(Duration lookAgain) {
      return new State(null, lookAgain);
    }
  }

  private CutSnapshot() {}

  static State ready(Move move, PersistentVolume old) throws MoveFailure {
    MoveNames names = move.names();
    MoveCluster cluster = move.cluster();
    Optional<GenericKubernetesResource> found = cluster.snapshotContent(names.cut());
    GenericKubernetesResource content;
    if (found.isPresent()) {
      content = found.get();
    } else {
      String node = move.status().getSourceNode();
      Optional<DriverEndpoint> endpoint = SourceFacts.endpoint(move, old, node);
      if (endpoint.isEmpty()) {
        return State.waiting(
            CutOverCopy.passing(
                move,
                "SourceDriverMissing",
                "no ready driver pod on node " + node + " to take the cut-over snapshot"));
      }
      CopyCalls calls = move.services().calls();
      Optional<CompletableFuture<Taken>> ended =
          calls.snapshot(
              ResourceID.fromResource(move.resource()),
              move.resource().getMetadata().getUid(),
              () -> calls.copier().snapshot(endpoint.get(), request(move, old), CopyCalls.TIMEOUT));
      if (ended.isEmpty()) {
        move.message(
            "taking snapshot " + names.cutSnapshot() + " of the old volume on node " + node);
        move.save();
        return State.waiting(CutOverCopy.POLL);
      }
      Taken taken;
      try {
        taken = ended.get().join();
      } catch (CompletionException e) {
        return State.waiting(failed(move, Status.fromThrowable(e.getCause())));
      }
      content = cluster.ensure(imported(move, old, taken.snapshotId()).content());
    }
    String handle =
        SnapshotObjects.importedHandle(content)
            .orElseThrow(
                () ->
                    MoveFailure.failed(
                        "CutOverSnapshotFailed",
                        "VolumeSnapshotContent "
                            + names.cut()
                            + " names no snapshot handle (an earlier operator made it), so no"
                            + " snapshot controller binds it"));
    GenericKubernetesResource snapshot =
        cluster
            .snapshot(names.namespace(), names.cut())
            .orElseGet(() -> cluster.ensure(imported(move, old, handle).snapshot()));
    Optional<String> error =
        SnapshotObjects.error(snapshot).or(() -> SnapshotObjects.error(content));
    if (error.isPresent()) {
      return State.waiting(
          CutOverCopy.passing(
              move, "CutOverSnapshotFailed", "VolumeSnapshot " + names.cut() + ": " + error.get()));
    }
    if (!SnapshotObjects.ready(snapshot)) {
      return State.waiting(
          CutOverCopy.passing(
              move,
              null,
              "waiting for VolumeSnapshot "
                  + names.cut()
                  + " (snapshot "
                  + handle
                  + " on node "
                  + move.status().getSourceNode()
                  + ") to be ready"));
    }
    return new State(handle, null);
  }

  private static Duration failed(Move move, Status status) throws MoveFailure {
    if (status.getCode() == Status.Code.UNIMPLEMENTED) {
      // a driver of an older release, until the operator's rollout of its DaemonSet reaches it
      return CutOverCopy.passing(
          move,
          "SourceDriverOutdated",
          "the driver on node "
              + move.status().getSourceNode()
              + " does not take cut-over snapshots (an older release); it does once its pod runs"
              + " this operator's release");
    }
    String why =
        "the driver on node "
            + move.status().getSourceNode()
            + " did not take the cut-over snapshot: "
            + status.getCode()
            + " "
            + status.getDescription();
    if (CutOverCopy.PASSING.contains(status.getCode())) {
      return CutOverCopy.passing(move, "CutOverSnapshotFailed", why);
    }
    throw MoveFailure.failed("CutOverSnapshotFailed", why);
  }

  /**
   * Before a rollback removes the temporaries: S2 taken but never imported (the operator stopped
   * between the two) is dropped on its node, which nothing else would delete. A driver that cannot
   * be asked is named in a Warning.
   */
  static void dropUnimported(Move move, PersistentVolume old) {
    if (move.cluster().snapshotContent(move.names().cut()).isPresent()) {
      return; // deleting its VolumeSnapshot deletes it
    }
    String node = move.status().getSourceNode();
    String name = move.names().cutSnapshot();
    QuickAnswers.Asked<Boolean> asked =
        SourceFacts.ask(
            move,
            old,
            node,
            (copier, driver) -> copier.dropSnapshot(driver, request(move, old), SourceFacts.QUICK));
    if (asked.failure() == null) {
      if (asked.answer()) {
        log.info("dropped the cut-over snapshot {} on node {}", name, node);
      }
      return;
    }
    move.warning(
        "CutOverSnapshotLeft",
        "could not ask the driver on node "
            + node
            + " to drop the cut-over snapshot "
            + name
            + " ("
            + asked.failure()
            + "); if it took one, it stays in that node's data dir until deleted");
  }

  private static SnapshotOf request(Move move, PersistentVolume old) {
    return new SnapshotOf(move.names().cutSnapshot(), old.getSpec().getCsi().getVolumeHandle());
  }

  private static ImportedSnapshot imported(Move move, PersistentVolume old, String handle) {
    MoveNames names = move.names();
    return new ImportedSnapshot(
        names.cut(),
        names.namespace(),
        SourceFacts.driver(old),
        handle,
        move.status().getSourceNode(),
        SourceFacts.snapshotClass(old),
        names.labels());
  }
}
