package io.thinvol.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Status;
import io.thinvol.addons.call.MoveCopier.CopiedIn;
import io.thinvol.api.v1alpha1.MovePhase;
import io.thinvol.api.v1alpha1.VolumeMove;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * An operator stopped in the middle of a cut-over, and a new one started: the move goes on from
 * what exists and completes, or, deleted meanwhile, rolls back leaving nothing on the target.
 */
class VolumeMoveRestartTest extends MoveClusterTest {

  @Test
  void aNewOperatorFinishesACutOverWhoseClaimWasDeleted() throws Exception {
    storage.stuckSnapshots.add("-cut");
    stopApp();
    VolumeMove created =
        createMove("to-b", "  persistentVolumeClaim: data\n  targetNode: node-b\n");
    await("the claim deleted by the cut-over", () -> claim() == null);
    assertThat(move("to-b").getStatus().getPhase()).isEqualTo(MovePhase.CuttingOver);

    restartOperator(settings(), () -> storage.stuckSnapshots.remove("-cut"));

    VolumeMove done = awaitPhase("to-b", MovePhase.Succeeded);
    assertThat(claim().getSpec().getVolumeName())
        .isEqualTo("thinvol-move-" + created.getMetadata().getUid());
    assertThat(done.getStatus().getOriginalReclaimPolicy()).isEqualTo("Delete");
    assertThat(moveEvents("to-b"))
        .containsSubsequence("CutOverStarted", "ClaimRebound", "Succeeded");
    await("the old volume deleted", () -> volume(OLD_PV) == null);
    await("the temporaries gone", () -> temporaries(created) == 0);
  }

  @Test
  void aNewOperatorAsksForTheCopyAgainAndGetsTheSameVolume() throws Exception {
    AtomicInteger asked = new AtomicInteger();
    copier.copyIn =
        request ->
            asked.incrementAndGet() == 1
                ? new CompletableFuture<>() // the first operator stops while it runs
                : CompletableFuture.completedFuture(
                    new CopiedIn("copied-" + request.name(), FakeMoveCopier.SIZE, "s", 7));
    stopApp();
    VolumeMove created =
        createMove("to-b", "  persistentVolumeClaim: data\n  targetNode: node-b\n");
    await("the copy asked", () -> copier.copies.size() == 1);

    restartOperator(settings());

    VolumeMove done = awaitPhase("to-b", MovePhase.Succeeded);
    assertThat(copier.copies).hasSize(2);
    assertThat(copier.copies.get(1)).isEqualTo(copier.copies.get(0));
    assertThat(done.getStatus().getTargetVolumeHandle())
        .isEqualTo("copied-thinvol-move-" + created.getMetadata().getUid());
    assertThat(claim().getStatus().getPhase()).isEqualTo("Bound");
  }

  @Test
  void aMoveDeletedWhileTheOperatorWasDownRollsBackAndDropsTheCopyItNeverLearned()
      throws Exception {
    copier.copyIn = request -> new CompletableFuture<>(); // the first operator stops while it runs
    AtomicInteger drops = new AtomicInteger();
    copier.dropVolume =
        () ->
            drops.incrementAndGet() == 1
                ? CompletableFuture.failedFuture(
                    Status.ABORTED.withDescription("a copy of that name runs").asRuntimeException())
                : CompletableFuture.completedFuture(true);
    stopApp();
    VolumeMove created =
        createMove("to-b", "  persistentVolumeClaim: data\n  targetNode: node-b\n");
    String newVolume = "thinvol-move-" + created.getMetadata().getUid();
    await("the copy asked", () -> copier.copies.size() == 1);

    restartOperator(settings(), () -> client.resource(move("to-b")).delete());

    await("the move gone", () -> move("to-b") == null);
    assertThat(copier.copies).as("no copy asked by the new operator").hasSize(1);
    // asked while that copy still ran (ABORTED), then again once it had ended
    assertThat(copier.droppedCopies)
        .containsExactly(
            newVolume + " snap-" + newVolume + "-cut", newVolume + " snap-" + newVolume + "-cut");
    assertThat(claim().getSpec().getVolumeName()).isEqualTo(OLD_PV);
    assertThat(claim().getStatus().getPhase()).isEqualTo("Bound");
    await("the temporaries gone", () -> temporaries(created) == 0);
  }
}
