package io.thinvol.driver.csi;

import com.google.protobuf.Timestamp;
import csi.v1.ListVolumesResponse;
import csi.v1.Snapshot;
import csi.v1.Topology;
import csi.v1.Volume;
import csi.v1.VolumeCondition;
import csi.v1.VolumeContentSource;
import csi.v1.VolumeGroupSnapshot;
import io.thinvol.driver.config.DriverConfig;
import io.thinvol.driver.core.GroupSnapshots;
import io.thinvol.driver.core.VolumeHealth;
import io.thinvol.driver.store.ContentSource;
import io.thinvol.driver.store.SnapshotRecord;
import io.thinvol.driver.store.VolumeRecord;
import java.time.Instant;

/** Builds CSI messages from the driver's records. */
final class Messages {

  private Messages() {}

  static Topology topology(String nodeId) {
    return Topology.newBuilder().putSegments(DriverConfig.TOPOLOGY_KEY, nodeId).build();
  }

  static Volume volume(VolumeRecord record, String nodeId) {
    Volume.Builder volume =
        Volume.newBuilder()
            .setVolumeId(record.id())
            .setCapacityBytes(record.sizeBytes())
            .addAccessibleTopology(topology(nodeId));
    if (record.contentSource() != null) {
      volume.setContentSource(contentSource(record.contentSource()));
    }
    return volume.build();
  }

  static VolumeContentSource contentSource(ContentSource source) {
    VolumeContentSource.Builder builder = VolumeContentSource.newBuilder();
    if (source.kind() == ContentSource.Kind.SNAPSHOT) {
      builder.getSnapshotBuilder().setSnapshotId(source.id());
    } else {
      builder.getVolumeBuilder().setVolumeId(source.id());
    }
    return builder.build();
  }

  static Snapshot snapshot(SnapshotRecord record) {
    Snapshot.Builder snapshot =
        Snapshot.newBuilder()
            .setSnapshotId(record.id())
            .setSourceVolumeId(record.sourceVolumeId())
            .setSizeBytes(record.sizeBytes())
            .setCreationTime(timestamp(record.createdAt()))
            .setReadyToUse(true);
    if (record.groupSnapshotId() != null) {
      snapshot.setGroupSnapshotId(record.groupSnapshotId()); // it goes only with its group
    }
    return snapshot.build();
  }

  static VolumeGroupSnapshot groupSnapshot(GroupSnapshots.Group group) {
    VolumeGroupSnapshot.Builder message =
        VolumeGroupSnapshot.newBuilder()
            .setGroupSnapshotId(group.record().id())
            .setCreationTime(timestamp(group.record().createdAt()))
            .setReadyToUse(true); // copies are complete and durable before they are recorded
    group.members().forEach(member -> message.addSnapshots(snapshot(member)));
    return message.build();
  }

  private static Timestamp timestamp(String instant) {
    Instant parsed = Instant.parse(instant);
    return Timestamp.newBuilder()
        .setSeconds(parsed.getEpochSecond())
        .setNanos(parsed.getNano())
        .build();
  }

  /** A condition: normal when {@code problem} is null. */
  static VolumeCondition condition(String problem) {
    return problem == null
        ? VolumeCondition.newBuilder().setAbnormal(false).setMessage("volume is healthy").build()
        : VolumeCondition.newBuilder().setAbnormal(true).setMessage(problem).build();
  }

  /** A volume's condition, and this node as its publisher while it is staged here. */
  static ListVolumesResponse.VolumeStatus volumeStatus(
      VolumeHealth.View view, VolumeRecord record, String nodeId) {
    ListVolumesResponse.VolumeStatus.Builder status =
        ListVolumesResponse.VolumeStatus.newBuilder()
            .setVolumeCondition(condition(view.problem(record)));
    if (view.isStaged(record)) {
      status.addPublishedNodeIds(nodeId);
    }
    return status.build();
  }
}
