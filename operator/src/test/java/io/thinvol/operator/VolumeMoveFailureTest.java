package io.thinvol.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.grpc.Status;
import io.thinvol.addons.ClusterFixtures;
import io.thinvol.addons.call.MoveCopier;
import io.thinvol.addons.call.MoveCopier.CopiedIn;
import io.thinvol.api.v1alpha1.MovePhase;
import io.thinvol.api.v1alpha1.VolumeMove;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * The traps of a move: the old volume's Delete policy during the swap, a claim of the same name
 * made by someone else meanwhile, a failure before the swap, a failure after it, and a move deleted
 * in the middle.
 */
class VolumeMoveFailureTest extends MoveClusterTest {

  @Test
  void theOldVolumeIsHeldAtRetainWhileTheClaimIsAway() {
    storage.stuckSnapshots.add("-cut");
    stopApp();
    createMove("to-b", "  persistentVolumeClaim: data\n  targetNode: node-b\n");
    await("the claim deleted by the cut-over", () -> claim() == null);
    await(
        "the old volume Released (the PV controller saw its claim gone)",
        () -> "Released".equals(volume(OLD_PV).getStatus().getPhase()));
    PersistentVolume held = volume(OLD_PV);
    assertThat(held.getSpec().getPersistentVolumeReclaimPolicy()).isEqualTo("Retain");
    assertThat(held.getMetadata().getAnnotations())
        .containsEntry("thinvol.io/volume-move", "apps/to-b");
    assertThat(move("to-b").getStatus().getOriginalReclaimPolicy()).isEqualTo("Delete");
    assertThat(storage.deletedVolumes).isEmpty();

    storage.stuckSnapshots.remove("-cut");
    awaitPhase("to-b", MovePhase.Succeeded);
    await("the old volume deleted once the claim is bound again", () -> volume(OLD_PV) == null);
    assertThat(storage.deletedVolumes)
        .as("deleted by the provisioner but the pre-copy's")
        .filteredOn(name -> !name.startsWith("pvc-"))
        .containsExactly(OLD_PV);
    assertThat(claim().getStatus().getPhase()).isEqualTo("Bound");
  }

  @Test
  void aClaimOfTheSameNameMadeByAnotherIsRefusedDuringTheWindow() {
    storage.stuckSnapshots.add("-cut");
    stopApp();
    createMove("to-b", "  persistentVolumeClaim: data\n  targetNode: node-b\n");
    await("the claim deleted by the cut-over", () -> claim() == null);

    // A StatefulSet controller re-creating its claim from the volume claim template.
    PersistentVolumeClaim template =
        new PersistentVolumeClaimBuilder(ClusterFixtures.claim(APPS, CLAIM, BACKEND))
            .editMetadata()
            .withLabels(Map.of("app", "web"))
            .endMetadata()
            .build();
    assertThatThrownBy(() -> client.resource(template).create())
        .isInstanceOfSatisfying(
            KubernetesClientException.class,
            e -> {
              assertThat(e.getCode()).isEqualTo(403);
              assertThat(e.getStatus().getMessage())
                  .contains("ValidatingAdmissionPolicy 'thinvol-move-")
                  .contains("is being moved to another node by VolumeMove to-b");
            });
    template.getMetadata().setAnnotations(Map.of("thinvol.io/moved-by", "to-b"));
    assertThatThrownBy(() -> client.resource(template).create())
        .as("the mark alone does not let anyone but the operator through")
        .isInstanceOf(KubernetesClientException.class);

    storage.stuckSnapshots.remove("-cut");
    VolumeMove done = awaitPhase("to-b", MovePhase.Succeeded);
    assertThat(claim().getSpec().getVolumeName()).isEqualTo(done.getStatus().getTargetVolume());
    assertThat(client.admissionRegistration().v1().validatingAdmissionPolicies().list().getItems())
        .isEmpty();
    // A real API server stops enforcing a deleted policy a moment later (its policy informer), as
    // it starts enforcing a created one a moment later: until then the policy's 403, then 409.
    await(
        "the policy out of force: the name merely taken",
        () -> {
          KubernetesClientException refused = dryRunCreateRefusal(template);
          if (refused.getCode() == 403) {
            assertThat(refused.getStatus().getMessage())
                .contains("ValidatingAdmissionPolicy 'thinvol-move-");
            return false;
          }
          assertThat(refused.getCode()).isEqualTo(409);
          return true;
        });
  }

  private KubernetesClientException dryRunCreateRefusal(PersistentVolumeClaim claim) {
    try {
      client.resource(claim).dryRun().create();
    } catch (KubernetesClientException e) {
      return e;
    }
    throw new AssertionError("a dry-run create of the taken name " + CLAIM + " was accepted");
  }

  @Test
  void aFailedPreCopyLeavesTheClaimAsItWas() {
    PersistentVolumeClaim before = claim();
    storage.failingSnapshots.put("-pre", "no space left on node-a");
    VolumeMove created =
        createMove("to-b", "  persistentVolumeClaim: data\n  targetNode: node-b\n");
    VolumeMove failed = awaitPhase("to-b", MovePhase.Failed);

    assertThat(VolumeMoveTest.condition(failed, "Failed").getReason())
        .isEqualTo("PreCopySnapshotFailed");
    assertThat(failed.getStatus().getMessage()).contains("no space left on node-a");
    assertUntouched(before);
    await("the temporaries gone", () -> temporaries(created) == 0);
    assertThat(moveEvents("to-b")).containsExactly("Accepted", "PreCopyStarted", "Failed");
  }

  @Test
  void aMoveDeletedDuringThePreCopyRemovesWhatItMade() {
    PersistentVolumeClaim before = claim();
    storage.stuckSnapshots.add(CLAIM);
    VolumeMove created =
        createMove("to-b", "  persistentVolumeClaim: data\n  targetNode: node-b\n");
    awaitPhase("to-b", MovePhase.PreCopying);
    await(
        "the pre-copy's snapshot",
        () ->
            client
                    .genericKubernetesResources("snapshot.storage.k8s.io/v1", "VolumeSnapshot")
                    .inNamespace(APPS)
                    .list()
                    .getItems()
                    .size()
                == 1);
    client.resource(move("to-b")).delete();
    await("the move gone", () -> move("to-b") == null);
    await("the temporaries gone", () -> temporaries(created) == 0);
    assertUntouched(before);
  }

  @Test
  void aFailedCopyRollsTheClaimBackToItsOldVolume() {
    PersistentVolumeClaim before = claim();
    copier.copyIn =
        request ->
            CompletableFuture.failedFuture(
                Status.INTERNAL
                    .withDescription("the copy does not read as the snapshot")
                    .asRuntimeException());
    stopApp();
    VolumeMove created =
        createMove("to-b", "  persistentVolumeClaim: data\n  targetNode: node-b\n");
    VolumeMove failed = awaitPhase("to-b", MovePhase.Failed);

    assertThat(failed.getStatus().getMessage())
        .contains("the copy does not read as the snapshot")
        .endsWith("the claim is bound to its old volume again");
    PersistentVolumeClaim back = claim();
    assertThat(back.getMetadata().getUid()).isNotEqualTo(before.getMetadata().getUid());
    assertThat(back.getSpec().getVolumeName()).isEqualTo(OLD_PV);
    assertThat(back.getStatus().getPhase()).isEqualTo("Bound");
    assertThat(back.getMetadata().getLabels()).isEqualTo(before.getMetadata().getLabels());
    assertThat(back.getMetadata().getAnnotations())
        .containsEntry("example.com/owner", "web team")
        .doesNotContainKey("thinvol.io/moved-by");
    PersistentVolume old = volume(OLD_PV);
    assertThat(old.getSpec().getPersistentVolumeReclaimPolicy()).isEqualTo("Delete");
    assertThat(old.getMetadata().getAnnotations())
        .doesNotContainKeys("thinvol.io/volume-move", "thinvol.io/volume-move-claim");
    await("the temporaries gone", () -> temporaries(created) == 0);
    assertThat(copier.dropped).as("S2 deleted through its VolumeSnapshot").isEmpty();
    assertThat(storage.deletedVolumes).doesNotContain(OLD_PV);
    assertThat(moveEvents("to-b"))
        .containsSubsequence("CutOverStarted", "RollingBack", "RolledBack", "Failed");
  }

  @Test
  void aMoveDeletedWhileItsCopyRunsRollsBackAndDiscardsTheCopy() {
    CompletableFuture<CopiedIn> copy = new CompletableFuture<>();
    copier.copyIn = request -> copy;
    stopApp();
    VolumeMove created =
        createMove("to-b", "  persistentVolumeClaim: data\n  targetNode: node-b\n");
    String newVolume = "thinvol-move-" + created.getMetadata().getUid();
    await("the copy asked", () -> copier.copies.size() == 1);
    client.resource(move("to-b")).delete();
    awaitRollbackWaitingFor("the copy to the target node");
    copy.complete(new CopiedIn("copied-" + newVolume, FakeMoveCopier.SIZE, "snap-base", 1));

    await("the move gone", () -> move("to-b") == null);
    await(
        "the copy's volume deleted by its provisioner",
        () -> storage.deletedVolumes.contains(newVolume));
    assertThat(claim().getSpec().getVolumeName()).isEqualTo(OLD_PV);
    assertThat(claim().getStatus().getPhase()).isEqualTo("Bound");
    assertThat(volume(OLD_PV).getSpec().getPersistentVolumeReclaimPolicy()).isEqualTo("Delete");
    await("the temporaries gone", () -> temporaries(created) == 0);
  }

  @Test
  void aMoveDeletedWhileItsCutOverSnapshotIsTakenRollsBackAndDropsIt() {
    CompletableFuture<MoveCopier.Taken> taking = new CompletableFuture<>();
    copier.snapshot = request -> taking;
    stopApp();
    VolumeMove created =
        createMove("to-b", "  persistentVolumeClaim: data\n  targetNode: node-b\n");
    await("S2 asked", () -> copier.snapshots.size() == 1);
    client.resource(move("to-b")).delete();
    awaitRollbackWaitingFor("the cut-over snapshot");
    taking.complete(new MoveCopier.Taken("snap-s2", FakeMoveCopier.SIZE));

    await("the move gone", () -> move("to-b") == null);
    // never imported, so no VolumeSnapshot's deletion would delete it
    assertThat(copier.dropped).containsExactly(copier.snapshots.get(0));
    assertThat(copier.copies).isEmpty();
    assertThat(claim().getSpec().getVolumeName()).isEqualTo(OLD_PV);
    assertThat(claim().getStatus().getPhase()).isEqualTo("Bound");
    await("the temporaries gone", () -> temporaries(created) == 0);
  }

  /**
   * The call is answered only once the operator saw the deletion: answered earlier, a reconcile
   * from a cache that does not show the deletion yet takes the answer forward, as it may.
   */
  private void awaitRollbackWaitingFor(String call) {
    await(
        "the rollback waiting for " + call,
        () ->
            String.valueOf(move("to-b").getStatus().getMessage())
                .startsWith("rolling back: waiting for " + call));
  }

  @Test
  void aSourceDriverOfAnOlderReleaseIsWaitedForAndThenTakesTheSnapshot() {
    AtomicBoolean updated = new AtomicBoolean(); // the driver's pod runs this release
    copier.snapshot =
        request ->
            updated.get()
                ? CompletableFuture.completedFuture(
                    new MoveCopier.Taken("snap-" + request.name(), FakeMoveCopier.SIZE))
                : CompletableFuture.failedFuture(
                    Status.UNIMPLEMENTED
                        .withDescription("Method not found: thinvol.peer.v1.MoveCopy/Snapshot")
                        .asRuntimeException());
    stopApp();
    createMove("to-b", "  persistentVolumeClaim: data\n  targetNode: node-b\n");
    await(
        "the message saying why it waits",
        () ->
            move("to-b").getStatus() != null
                && String.valueOf(move("to-b").getStatus().getMessage())
                    .contains("does not take cut-over snapshots (an older release)"));
    assertThat(move("to-b").getStatus().getPhase()).isEqualTo(MovePhase.CuttingOver);

    updated.set(true);

    awaitPhase("to-b", MovePhase.Succeeded);
    assertThat(copier.snapshots.size()).isGreaterThan(1);
  }

  @Test
  void aClaimItsOwnerDeletesIsNotRecreated() {
    VolumeMove created =
        createMove("to-b", "  persistentVolumeClaim: data\n  targetNode: node-b\n");
    awaitPhase("to-b", MovePhase.WaitingForCutOver);
    client.persistentVolumeClaims().inNamespace(APPS).withName(CLAIM).delete();
    stopApp();
    await("the claim gone", () -> claim() == null);

    VolumeMove failed = awaitPhase("to-b", MovePhase.Failed);
    // Its volume (Delete) may be gone first: the provisioner deletes it once the claim is.
    assertThat(VolumeMoveTest.condition(failed, "Failed").getReason())
        .isIn("ClaimLost", "VolumeNotFound");
    assertThat(claim()).isNull();
    await("the temporaries gone", () -> temporaries(created) == 0);
    assertThat(moveEvents("to-b")).doesNotContain("RollingBack");
  }

  private void assertUntouched(PersistentVolumeClaim before) {
    PersistentVolumeClaim now = claim();
    assertThat(now.getMetadata().getUid()).isEqualTo(before.getMetadata().getUid());
    assertThat(now.getSpec().getVolumeName()).isEqualTo(OLD_PV);
    assertThat(now.getMetadata().getDeletionTimestamp()).isNull();
    PersistentVolume old = volume(OLD_PV);
    assertThat(old.getSpec().getPersistentVolumeReclaimPolicy()).isEqualTo("Delete");
    assertThat(old.getMetadata().getAnnotations()).isNullOrEmpty();
  }
}
