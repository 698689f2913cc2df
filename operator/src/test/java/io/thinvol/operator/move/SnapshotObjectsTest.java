package io.thinvol.operator.move;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.utils.Serialization;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Which S2 content a move deletes itself: only one the snapshot controller never bound. A bound one
 * goes with its VolumeSnapshot, also when a later look finds that snapshot gone already (the
 * evacuation's moves on the kit's two nodes deleted it then, and the csi-snapshotter's removal made
 * the controller's own delete fail with a Warning SnapshotContentObjectDeleteError).
 */
class SnapshotObjectsTest {

  private static GenericKubernetesResource content(String ref) {
    return Serialization.unmarshal(
        "apiVersion: snapshot.storage.k8s.io/v1\nkind: VolumeSnapshotContent\n"
            + "metadata:\n  name: thinvol-move-1-cut\nspec:\n  deletionPolicy: Delete\n"
            + "  volumeSnapshotRef:\n"
            + ref,
        GenericKubernetesResource.class);
  }

  @Test
  @DisplayName("A content the controller bound is its to delete, whether its snapshot is there")
  void boundByTheController() {
    assertThat(
            SnapshotObjects.bound(
                content("    name: thinvol-move-1-cut\n    namespace: apps\n    uid: 1234\n")))
        .isTrue();
  }

  @Test
  @DisplayName("A content imported ahead and never bound is the move's to delete")
  void importedAheadOnly() {
    assertThat(
            SnapshotObjects.bound(content("    name: thinvol-move-1-cut\n    namespace: apps\n")))
        .isFalse();
    assertThat(
            SnapshotObjects.bound(
                content("    name: thinvol-move-1-cut\n    namespace: apps\n    uid: \"\"\n")))
        .isFalse();
  }
}
