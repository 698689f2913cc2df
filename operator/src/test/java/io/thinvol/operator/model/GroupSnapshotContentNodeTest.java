package io.thinvol.operator.model;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.thinvol.addons.ClusterFixtures;
import io.thinvol.operator.model.SnapshotContentNode.Action;
import io.thinvol.operator.model.SnapshotContentNode.Outcome;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

class GroupSnapshotContentNodeTest {

  private static final String DRIVER = "local.thinvol.io";
  private static final Map<String, PersistentVolume> VOLUMES =
      Map.of(
          "vol-a", ClusterFixtures.volume("pv-a", DRIVER, "vol-a", "node-a", "apps", "a"),
          "vol-a2", ClusterFixtures.volume("pv-a2", DRIVER, "vol-a2", "node-a", "apps", "a2"),
          "vol-b", ClusterFixtures.volume("pv-b", DRIVER, "vol-b", "node-b", "apps", "b"));
  private static final Function<String, List<PersistentVolume>> KNOWN =
      handle -> Stream.ofNullable(VOLUMES.get(handle)).toList();

  @Test
  void aGroupOfOneNodesVolumesIsLabelledWithThatNode() {
    Outcome outcome = GroupSnapshotContentNode.decide(group("g", DRIVER, "vol-a", "vol-a2"), KNOWN);
    assertThat(outcome.action()).isEqualTo(Action.LABEL);
    assertThat(outcome.node()).isEqualTo("node-a");
    assertThat(outcome.reason()).isNull();
  }

  @Test
  void aGroupAcrossNodesIsLabelledForItsFirstVolumesNodeWithAWarning() {
    Outcome outcome = GroupSnapshotContentNode.decide(group("g", DRIVER, "vol-b", "vol-a"), KNOWN);
    assertThat(outcome.action()).isEqualTo(Action.LABEL);
    assertThat(outcome.node()).isEqualTo("node-b");
    assertThat(outcome.reason()).isEqualTo("SourceNodesDiffer");
    assertThat(outcome.message()).contains("[node-b, node-a]");
  }

  @Test
  void otherDriversAndLabelledGroupsAreLeftAlone() {
    assertThat(
            GroupSnapshotContentNode.decide(group("g", "other.csi.example.com", "vol-a"), KNOWN)
                .action())
        .isEqualTo(Action.LEAVE);
    VolumeGroupSnapshotContent labelled = group("g", DRIVER, "vol-a");
    labelled.getMetadata().setLabels(Map.of(SnapshotContentNode.MANAGED_BY, "node-b"));
    assertThat(GroupSnapshotContentNode.decide(labelled, KNOWN).action()).isEqualTo(Action.LEAVE);
  }

  @Test
  void aVolumeNotKnownYetMakesItWaitNamingIt() {
    Outcome outcome =
        GroupSnapshotContentNode.decide(group("g", DRIVER, "vol-a", "vol-new"), KNOWN);
    assertThat(outcome.action()).isEqualTo(Action.WAIT);
    assertThat(outcome.reason()).isEqualTo("SourceVolumeUnknown");
    assertThat(outcome.message())
        .contains("[vol-new]", "kubectl label volumegroupsnapshotcontent g");
  }

  @Test
  void aPreProvisionedGroupIsTheAdminsToLabel() {
    VolumeGroupSnapshotContent imported = group("imported", DRIVER);
    imported.getSpec().getSource().setVolumeHandles(null);
    imported
        .getSpec()
        .getSource()
        .setGroupSnapshotHandles(Map.of("volumeGroupSnapshotHandle", "group-1"));
    Outcome outcome = GroupSnapshotContentNode.decide(imported, KNOWN);
    assertThat(outcome.action()).isEqualTo(Action.ASK_ADMIN);
    assertThat(outcome.reason()).isEqualTo("PreProvisionedContent");
    assertThat(outcome.message()).contains("kubectl label volumegroupsnapshotcontent imported");
  }

  @Test
  void theClassServesTheOldestGroupToBeMadeThoseThatFailedLast() {
    VolumeGroupSnapshotContent made = labelled("made", "node-a", "2026-11-26T10:00:00Z");
    made.setStatus(new VolumeGroupSnapshotContent.Status());
    made.getStatus().setVolumeGroupSnapshotHandle("group-1");
    VolumeGroupSnapshotContent failing = labelled("failing", "node-b", "2026-11-26T10:00:01Z");
    failing.setStatus(new VolumeGroupSnapshotContent.Status());
    failing.getStatus().setError(Map.of("message", "refused"));
    VolumeGroupSnapshotContent deleted = labelled("deleted", "node-d", "2026-11-26T10:00:02Z");
    deleted.getMetadata().setDeletionTimestamp("2026-11-26T10:05:00Z");
    VolumeGroupSnapshotContent older = labelled("older", "node-c", "2026-11-26T10:00:03Z");
    VolumeGroupSnapshotContent newer = labelled("newer", "node-e", "2026-11-26T10:00:04Z");
    VolumeGroupSnapshotContent unlabelled = group("unlabelled", DRIVER, "vol-a");

    assertThat(
            GroupSnapshotContentNode.classNode(
                List.of(newer, made, failing, deleted, older, unlabelled)))
        .contains("node-c");
    assertThat(GroupSnapshotContentNode.classNode(List.of(made, failing, deleted)))
        .contains("node-b");
    assertThat(GroupSnapshotContentNode.classNode(List.of(made, deleted, unlabelled))).isEmpty();
  }

  private static VolumeGroupSnapshotContent labelled(String name, String node, String created) {
    VolumeGroupSnapshotContent content = group(name, DRIVER, "vol-a");
    content.getMetadata().setLabels(Map.of(SnapshotContentNode.MANAGED_BY, node));
    content.getMetadata().setCreationTimestamp(created);
    return content;
  }

  private static VolumeGroupSnapshotContent group(String name, String driver, String... handles) {
    VolumeGroupSnapshotContent content = new VolumeGroupSnapshotContent();
    content.setMetadata(new ObjectMetaBuilder().withName(name).build());
    VolumeGroupSnapshotContent.Spec spec = new VolumeGroupSnapshotContent.Spec();
    spec.setDriver(driver);
    spec.setVolumeGroupSnapshotClassName("local");
    VolumeGroupSnapshotContent.Source source = new VolumeGroupSnapshotContent.Source();
    source.setVolumeHandles(List.of(handles));
    spec.setSource(source);
    content.setSpec(spec);
    return content;
  }
}
