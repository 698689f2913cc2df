package io.thinvol.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Quantity;
import io.thinvol.addons.call.MoveCopier;
import io.thinvol.api.kube.VolumeNodes;
import io.thinvol.api.v1alpha1.MovePhase;
import io.thinvol.api.v1alpha1.VolumeMove;
import io.thinvol.api.v1alpha1.VolumeMoveStatus;
import org.junit.jupiter.api.Test;

/**
 * A VolumeMove's whole path with the storage controllers played: pre-copy while the application
 * runs, the wait for the claim to be unused, the cut-over, and the claim bound to its new volume on
 * the target node with the old volume deleted by its provisioner only then.
 */
class VolumeMoveTest extends MoveClusterTest {

  @Test
  void movesTheClaimToTheTargetNode() {
    String originalUid = claim().getMetadata().getUid();
    VolumeMove created =
        createMove("to-b", "  persistentVolumeClaim: data\n  targetNode: node-b\n");
    String id = created.getMetadata().getUid().replace("-", "").substring(0, 8);
    String newVolume = "thinvol-move-" + created.getMetadata().getUid();

    VolumeMove waiting = awaitPhase("to-b", MovePhase.WaitingForCutOver);
    VolumeMoveStatus pre = waiting.getStatus();
    assertThat(pre.getSourceNode()).isEqualTo("node-a");
    assertThat(pre.getTargetNode()).isEqualTo("node-b");
    assertThat(pre.getSourceVolume()).isEqualTo(OLD_PV);
    assertThat(pre.getBytesTotal())
        .isEqualTo(new Quantity(String.valueOf(FakeMoveCopier.ALLOCATED)));
    assertThat(pre.getBytesCopied())
        .isEqualTo(new Quantity(String.valueOf(FakeMoveCopier.ALLOCATED)));
    assertThat(pre.getCopyRate()).endsWith("/s");
    assertThat(pre.getStartTime()).isNotNull();
    assertThat(pre.getPreCopyCompletionTime()).isNotNull();
    assertThat(condition(waiting, "PreCopied").getStatus()).isEqualTo("True");
    await(
        "the message naming the pod",
        () -> move("to-b").getStatus().getMessage().contains("pod " + APP_POD + " uses it"));
    assertThat(claim().getMetadata().getUid()).as("the claim untouched").isEqualTo(originalUid);
    assertThat(copier.copies).as("no cut-over while the pod runs").isEmpty();
    PersistentVolumeClaim base =
        client
            .persistentVolumeClaims()
            .inNamespace(APPS)
            .withName("thinvol-move-" + id + "-base")
            .get();
    assertThat(base.getMetadata().getAnnotations())
        .containsEntry("volume.kubernetes.io/selected-node", "node-b");
    assertThat(base.getSpec().getDataSource().getName()).isEqualTo("thinvol-move-" + id + "-pre");

    stopApp();
    VolumeMove done = awaitPhase("to-b", MovePhase.Succeeded);

    PersistentVolumeClaim moved = claim();
    assertThat(moved.getMetadata().getUid()).isNotEqualTo(originalUid);
    assertThat(moved.getSpec().getVolumeName()).isEqualTo(newVolume);
    assertThat(moved.getStatus().getPhase()).isEqualTo("Bound");
    assertThat(moved.getMetadata().getLabels()).containsEntry("app", "web");
    assertThat(moved.getMetadata().getAnnotations())
        .containsEntry("example.com/owner", "web team")
        .containsEntry("thinvol.io/moved-by", "to-b")
        .doesNotContainKey("volume.kubernetes.io/selected-node");
    PersistentVolume volume = volume(newVolume);
    assertThat(volume.getSpec().getCsi().getVolumeHandle()).isEqualTo("copied-" + newVolume);
    assertThat(volume.getSpec().getCsi().getDriver()).isEqualTo(DRIVER);
    assertThat(VolumeNodes.of(volume)).containsExactly("node-b");
    assertThat(volume.getSpec().getPersistentVolumeReclaimPolicy()).isEqualTo("Delete");
    assertThat(volume.getMetadata().getAnnotations())
        .containsEntry("pv.kubernetes.io/provisioned-by", DRIVER);

    // S2 taken by the source node's driver once the claim was gone, named after the move
    assertThat(copier.snapshots)
        .containsExactly(new MoveCopier.SnapshotOf(newVolume + "-cut", OLD_HANDLE));
    assertThat(copier.dropped).as("S2 deleted through its VolumeSnapshot").isEmpty();
    assertThat(copier.copies)
        .containsExactly(
            new MoveCopier.CopyIn(
                newVolume,
                "snap-" + newVolume + "-cut",
                "copy-thinvol-move-" + id + "-base",
                APPS,
                "thinvol-move-" + id + "-cut"));
    VolumeMoveStatus status = done.getStatus();
    assertThat(status.getTargetVolume()).isEqualTo(newVolume);
    assertThat(status.getTargetVolumeHandle()).isEqualTo("copied-" + newVolume);
    assertThat(status.getDeltaBytes())
        .isEqualTo(new Quantity(String.valueOf(FakeMoveCopier.DELTA)));
    assertThat(status.getBytesCopied())
        .isEqualTo(new Quantity(String.valueOf(FakeMoveCopier.ALLOCATED + FakeMoveCopier.DELTA)));
    assertThat(status.getCutOverDuration()).matches("[0-9]+\\.[0-9]s");
    assertThat(status.getOriginalReclaimPolicy()).isEqualTo("Delete");
    assertThat(status.getCompletionTime()).isNotNull();
    assertThat(status.getMessage()).contains("from node node-a to node node-b");
    assertThat(condition(done, "CutOver").getStatus()).isEqualTo("True");
    assertThat(condition(done, "Succeeded").getStatus()).isEqualTo("True");
    assertThat(moveEvents("to-b"))
        .containsExactly(
            "Accepted",
            "PreCopyStarted",
            "PreCopied",
            "CutOverStarted",
            "ClaimRebound",
            "Succeeded");

    await("the old volume deleted by its provisioner", () -> volume(OLD_PV) == null);
    assertThat(storage.deletedVolumes)
        .as("deleted by the provisioner but the pre-copy's")
        .filteredOn(name -> !name.startsWith("pvc-"))
        .containsExactly(OLD_PV);
    await("the temporaries gone", () -> temporaries(created) == 0);
    assertThat(move("to-b").getMetadata().getFinalizers())
        .containsExactly("thinvol.io/volume-move");
    client.resource(move("to-b")).delete();
    await("the move deleted", () -> move("to-b") == null);
    assertThat(claim().getSpec().getVolumeName()).isEqualTo(newVolume);
  }

  static Condition condition(VolumeMove move, String type) {
    return move.getStatus().getConditions().stream()
        .filter(c -> c.getType().equals(type))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no condition " + type));
  }
}
