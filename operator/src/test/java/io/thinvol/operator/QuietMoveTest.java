package io.thinvol.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.thinvol.api.v1alpha1.MovePhase;
import io.thinvol.api.v1alpha1.VolumeMove;
import io.thinvol.testing.ApiRequest;
import io.thinvol.testing.StrictApiServer;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A move that succeeds is quiet: no Warning on anything. On a real cluster every move left {@code
 * SnapshotContentObjectDeleteError} on its {@code -cut} VolumeSnapshot: the operator deleted S2's
 * content besides its VolumeSnapshot, the node's csi-snapshotter removed the content as soon as the
 * snapshot controller marked it, and the controller's own delete of it then failed. The operator
 * deletes a VolumeSnapshot only once no claim is restored from it any more (the controller keeps
 * one a Pending claim is restored from, with a Warning), and leaves a content bound to its
 * VolumeSnapshot to the snapshot controller ({@link PlayedSnapshotDeletion} plays the real one's
 * protocol).
 */
class QuietMoveTest extends MoveClusterTest {

  @Test
  void aMoveThatSucceedsLeavesNoWarningAndItsSnapshotsGoThroughTheSnapshotController() {
    VolumeMove created =
        createMove("to-b", "  persistentVolumeClaim: data\n  targetNode: node-b\n");
    String id = created.getMetadata().getUid().replace("-", "").substring(0, 8);
    String prefix = "thinvol-move-" + id;
    awaitPhase("to-b", MovePhase.WaitingForCutOver);
    stopApp();
    awaitPhase("to-b", MovePhase.Succeeded);
    await("the temporaries gone", () -> temporaries(created) == 0);

    assertThat(storage.deletedSnapshots)
        .as("each snapshot deleted on its node by its csi-snapshotter")
        .containsExactlyInAnyOrder(
            "snap-" + prefix + "-pre",
            "snap-thinvol-move-" + created.getMetadata().getUid() + "-cut");
    assertThat(warnings()).as("Warnings in the claim's namespace").isEmpty();
    List<ApiRequest> deletes =
        operatorDecisions().stream()
            .map(StrictApiServer.Decision::request)
            .filter(r -> r.verb().equals("delete"))
            .toList();
    assertThat(deletes)
        .as("S2's content is the snapshot controller's to delete")
        .noneMatch(r -> r.resource().equals("volumesnapshotcontents"));
    for (String snapshot : List.of("-pre", "-cut")) {
      String claim = snapshot.equals("-pre") ? "-base" : "-cut";
      assertThat(firstDelete(deletes, "persistentvolumeclaims", prefix + claim))
          .as("claim %s deleted before the snapshot it restores from", claim)
          .isLessThan(firstDelete(deletes, "volumesnapshots", prefix + snapshot));
    }
  }

  /**
   * A move deleted while its pre-copy is being provisioned (an evacuation stopped does so): the
   * pre-copy's claim, Pending, goes before the snapshot it is restored from.
   */
  @Test
  void aMoveDeletedDuringItsPreCopyDeletesItsSnapshotOnlyOnceTheClaimRestoredFromItIsGone() {
    storage.unprovisioned.add("-base");
    storage.heldClaims.add("-base");
    VolumeMove created =
        createMove("to-b", "  persistentVolumeClaim: data\n  targetNode: node-b\n");
    String prefix =
        "thinvol-move-" + created.getMetadata().getUid().replace("-", "").substring(0, 8);
    await(
        "the pre-copy's claim made",
        () ->
            client.persistentVolumeClaims().inNamespace(APPS).withName(prefix + "-base").get()
                != null);

    client.resource(move("to-b")).delete();
    await(
        "the move waiting for the pre-copy's claim to be gone",
        () -> {
          VolumeMove now = move("to-b");
          return now != null
              && String.valueOf(now.getStatus().getMessage())
                  .contains("waiting for the claims restored from its snapshots to be gone");
        });
    assertThat(snapshot(prefix + "-pre").getMetadata().getDeletionTimestamp())
        .as("S1 kept while a Pending claim is restored from it")
        .isNull();
    storage.heldClaims.clear();

    await("the move gone", () -> move("to-b") == null);
    await("the temporaries gone", () -> temporaries(created) == 0);
    assertThat(storage.deletedSnapshots).containsExactly("snap-" + prefix + "-pre");
    assertThat(warnings())
        .as("Warnings on snapshots (the move's own says it was deleted)")
        .filteredOn(warning -> warning.startsWith("VolumeSnapshot "))
        .isEmpty();
  }

  /** The Warnings in the claim's namespace, as {@code kubectl get events} shows them. */
  private List<String> warnings() {
    return client.v1().events().inNamespace(APPS).list().getItems().stream()
        .filter(e -> e.getType().equals("Warning"))
        .map(QuietMoveTest::describe)
        .toList();
  }

  private GenericKubernetesResource snapshot(String name) {
    return client
        .genericKubernetesResources("snapshot.storage.k8s.io/v1", "VolumeSnapshot")
        .inNamespace(APPS)
        .withName(name)
        .get();
  }

  private static int firstDelete(List<ApiRequest> deletes, String resource, String name) {
    for (int i = 0; i < deletes.size(); i++) {
      if (deletes.get(i).resource().equals(resource) && name.equals(deletes.get(i).name())) {
        return i;
      }
    }
    throw new AssertionError("no delete of " + resource + " " + name + " in " + deletes);
  }

  /** An Event as {@code kubectl get events} shows it. */
  private static String describe(Event event) {
    return event.getInvolvedObject().getKind()
        + " "
        + event.getInvolvedObject().getName()
        + ": "
        + event.getReason()
        + " "
        + event.getMessage();
  }
}
