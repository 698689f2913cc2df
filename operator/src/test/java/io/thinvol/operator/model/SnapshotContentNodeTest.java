package io.thinvol.operator.model;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.thinvol.addons.ClusterFixtures;
import io.thinvol.operator.model.SnapshotContentNode.Action;
import io.thinvol.operator.model.SnapshotContentNode.Outcome;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SnapshotContentNodeTest {

  private static final String DRIVER = "local.thinvol.io";
  private static final PersistentVolume ON_NODE_A =
      ClusterFixtures.volume("pv-a", DRIVER, "vol-a", "node-a", "apps", "data");

  @Test
  void aDynamicContentIsLabelledWithItsVolumesNode() {
    Outcome outcome = SnapshotContentNode.decide(dynamic(DRIVER, "vol-a"), List.of(ON_NODE_A));
    assertThat(outcome.action()).isEqualTo(Action.LABEL);
    assertThat(outcome.node()).isEqualTo("node-a");
  }

  @Test
  void anotherDriversContentIsLeftAlone() {
    assertThat(
            SnapshotContentNode.decide(
                    dynamic("other.csi.example.com", "vol-a"), List.of(ON_NODE_A))
                .action())
        .isEqualTo(Action.LEAVE);
    assertThat(SnapshotContentNode.decide(dynamic(null, "vol-a"), List.of(ON_NODE_A)).action())
        .isEqualTo(Action.LEAVE);
  }

  @Test
  void aLabelledContentIsLeftAloneWhateverItsNode() {
    VolumeSnapshotContent content = dynamic(DRIVER, "vol-a");
    content.getMetadata().setLabels(Map.of(SnapshotContentNode.MANAGED_BY, "node-b"));
    assertThat(SnapshotContentNode.decide(content, List.of(ON_NODE_A)).action())
        .isEqualTo(Action.LEAVE);
  }

  @Test
  void withoutItsVolumeOrWithAnotherDriversVolumeOfThatHandleItWaits() {
    PersistentVolume foreign =
        ClusterFixtures.volume("pv-x", "other.csi.example.com", "vol-a", "node-x", "apps", "x");
    for (List<PersistentVolume> volumes : List.of(List.<PersistentVolume>of(), List.of(foreign))) {
      Outcome outcome = SnapshotContentNode.decide(dynamic(DRIVER, "vol-a"), volumes);
      assertThat(outcome.action()).isEqualTo(Action.WAIT);
      assertThat(outcome.reason()).isEqualTo("SourceVolumeUnknown");
      assertThat(outcome.message())
          .contains("vol-a", "kubectl label volumesnapshotcontent snapcontent-1");
    }
  }

  @Test
  void aVolumeWithoutOneCertainNodeIsLeftToTheAdmin() {
    PersistentVolume unpinned =
        ClusterFixtures.volume("pv-a", DRIVER, "vol-a", "node-a", "apps", "data");
    unpinned.getSpec().setNodeAffinity(null);
    PersistentVolume elsewhere =
        ClusterFixtures.volume("pv-b", DRIVER, "vol-a", "node-b", "apps", "data");
    for (List<PersistentVolume> volumes :
        List.of(List.of(unpinned), List.of(ON_NODE_A, elsewhere))) {
      Outcome outcome = SnapshotContentNode.decide(dynamic(DRIVER, "vol-a"), volumes);
      assertThat(outcome.action()).isEqualTo(Action.ASK_ADMIN);
      assertThat(outcome.reason()).isEqualTo("SourceNodeUnknown");
      assertThat(outcome.node()).isNull();
    }
  }

  @Test
  void aPreProvisionedContentIsLeftToTheAdminWithTheCommand() {
    VolumeSnapshotContent content = dynamic(DRIVER, null);
    content.getSpec().getSource().setSnapshotHandle("snap-1");
    Outcome outcome = SnapshotContentNode.decide(content, List.of(ON_NODE_A));
    assertThat(outcome.action()).isEqualTo(Action.ASK_ADMIN);
    assertThat(outcome.reason()).isEqualTo("PreProvisionedContent");
    assertThat(outcome.message())
        .contains(
            "snapshots/snap-1",
            "kubectl label volumesnapshotcontent snapcontent-1 "
                + SnapshotContentNode.MANAGED_BY
                + "=<node>");
  }

  @Test
  void thePatchSetsTheLabelOnlyAndOnlyOnTheVersionRead() {
    VolumeSnapshotContent content = dynamic(DRIVER, "vol-a");
    content.getMetadata().setResourceVersion("42");
    JsonNode patch =
        Serialization.unmarshal(SnapshotContentNode.labelPatch(content, "node-a"), JsonNode.class);
    assertThat(patch)
        .isEqualTo(
            Serialization.unmarshal(
                "{\"metadata\":{\"labels\":{\""
                    + SnapshotContentNode.MANAGED_BY
                    + "\":\"node-a\"},\"resourceVersion\":\"42\"}}",
                JsonNode.class));
  }

  @Test
  void theTypedContentReadsTheFieldsItNeedsAndIgnoresTheRest() {
    VolumeSnapshotContent content =
        Serialization.unmarshal(
            """
            apiVersion: snapshot.storage.k8s.io/v1
            kind: VolumeSnapshotContent
            metadata:
              name: snapcontent-1
            spec:
              driver: local.thinvol.io
              deletionPolicy: Delete
              source:
                volumeHandle: vol-a
              volumeSnapshotRef:
                name: backup
                namespace: apps
            status:
              readyToUse: true
            """,
            VolumeSnapshotContent.class);
    assertThat(content.getSpec().getDriver()).isEqualTo(DRIVER);
    assertThat(SnapshotContentNode.volumeHandle(content)).contains("vol-a");
  }

  private static VolumeSnapshotContent dynamic(String driver, String volumeHandle) {
    VolumeSnapshotContent content = new VolumeSnapshotContent();
    content.setMetadata(new ObjectMetaBuilder().withName("snapcontent-1").build());
    VolumeSnapshotContent.Spec spec = new VolumeSnapshotContent.Spec();
    spec.setDriver(driver);
    VolumeSnapshotContent.Source source = new VolumeSnapshotContent.Source();
    source.setVolumeHandle(volumeHandle);
    spec.setSource(source);
    content.setSpec(spec);
    return content;
  }
}
