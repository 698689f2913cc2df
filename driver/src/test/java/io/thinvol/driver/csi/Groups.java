package io.thinvol.driver.csi;

import csi.v1.CreateVolumeGroupSnapshotRequest;
import csi.v1.DeleteVolumeGroupSnapshotRequest;
import csi.v1.GetVolumeGroupSnapshotRequest;
import csi.v1.Snapshot;
import csi.v1.VolumeGroupSnapshot;
import io.thinvol.driver.client.CsiClient;
import java.util.List;

/** The GroupController calls of the tests, spelled out once. */
final class Groups {

  private Groups() {}

  static VolumeGroupSnapshot create(CsiClient csi, String name, String... volumeIds) {
    return csi.groupController()
        .createVolumeGroupSnapshot(
            CreateVolumeGroupSnapshotRequest.newBuilder()
                .setName(name)
                .addAllSourceVolumeIds(List.of(volumeIds))
                .build())
        .getGroupSnapshot();
  }

  static VolumeGroupSnapshot get(CsiClient csi, String groupId, List<String> snapshotIds) {
    return csi.groupController()
        .getVolumeGroupSnapshot(
            GetVolumeGroupSnapshotRequest.newBuilder()
                .setGroupSnapshotId(groupId)
                .addAllSnapshotIds(snapshotIds)
                .build())
        .getGroupSnapshot();
  }

  static void delete(CsiClient csi, String groupId, List<String> snapshotIds) {
    csi.groupController()
        .deleteVolumeGroupSnapshot(
            DeleteVolumeGroupSnapshotRequest.newBuilder()
                .setGroupSnapshotId(groupId)
                .addAllSnapshotIds(snapshotIds)
                .build());
  }

  static List<String> snapshotIds(VolumeGroupSnapshot group) {
    return group.getSnapshotsList().stream().map(Snapshot::getSnapshotId).toList();
  }

  /** The id of the member taken of {@code volumeId}. */
  static String memberOf(VolumeGroupSnapshot group, String volumeId) {
    return group.getSnapshotsList().stream()
        .filter(s -> s.getSourceVolumeId().equals(volumeId))
        .findFirst()
        .orElseThrow()
        .getSnapshotId();
  }
}
