package io.thinvol.operator.model;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What the snapshot-controller and a node-deployment csi-snapshotter need of an imported snapshot:
 * a content naming the snapshot's handle (never a volume), labelled with the node whose driver
 * holds it, deleting it with its VolumeSnapshot, and a VolumeSnapshot bound ahead to it.
 */
class ImportedSnapshotTest {

  private final ImportedSnapshot imported =
      new ImportedSnapshot(
          "thinvol-move-1234abcd-cut",
          "apps",
          "local.thinvol.io",
          "snap-0123",
          "node-a",
          "local",
          Map.of("thinvol.io/volume-move", "to-b"));

  @Test
  void theContentNamesTheSnapshotHandleAndTheNodeWhoseSidecarServesIt() {
    GenericKubernetesResource content = imported.content();

    assertThat(content.getMetadata().getName()).isEqualTo("thinvol-move-1234abcd-cut");
    assertThat(content.getMetadata().getNamespace()).isNull();
    assertThat(content.getMetadata().getLabels())
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(SnapshotContentNode.MANAGED_BY, "node-a", "thinvol.io/volume-move", "to-b"));
    assertThat(content.getAdditionalProperties().get("spec"))
        .isEqualTo(
            Map.of(
                "driver", "local.thinvol.io",
                "deletionPolicy", "Delete",
                "volumeSnapshotClassName", "local",
                "source", Map.of("snapshotHandle", "snap-0123"),
                "volumeSnapshotRef",
                    Map.of(
                        "apiVersion", "snapshot.storage.k8s.io/v1",
                        "kind", "VolumeSnapshot",
                        "namespace", "apps",
                        "name", "thinvol-move-1234abcd-cut")));
  }

  @Test
  void theSnapshotIsBoundAheadToTheContent() {
    GenericKubernetesResource snapshot = imported.snapshot();

    assertThat(snapshot.getMetadata().getNamespace()).isEqualTo("apps");
    assertThat(snapshot.getMetadata().getLabels())
        .containsExactlyEntriesOf(Map.of("thinvol.io/volume-move", "to-b"));
    assertThat(snapshot.getAdditionalProperties().get("spec"))
        .isEqualTo(
            Map.of(
                "volumeSnapshotClassName",
                "local",
                "source",
                Map.of("volumeSnapshotContentName", "thinvol-move-1234abcd-cut")));
  }
}
