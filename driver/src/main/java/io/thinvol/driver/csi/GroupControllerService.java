package io.thinvol.driver.csi;

import csi.v1.CreateVolumeGroupSnapshotRequest;
import csi.v1.CreateVolumeGroupSnapshotResponse;
import csi.v1.DeleteVolumeGroupSnapshotRequest;
import csi.v1.DeleteVolumeGroupSnapshotResponse;
import csi.v1.GetVolumeGroupSnapshotRequest;
import csi.v1.GetVolumeGroupSnapshotResponse;
import csi.v1.GroupControllerGetCapabilitiesRequest;
import csi.v1.GroupControllerGetCapabilitiesResponse;
import csi.v1.GroupControllerGrpc;
import csi.v1.GroupControllerServiceCapability;
import io.grpc.stub.StreamObserver;
import io.thinvol.driver.core.CsiException;
import io.thinvol.driver.core.GroupSnapshots;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** CSI GroupController: crash-consistent snapshots of several volumes of this node together. */
public final class GroupControllerService extends GroupControllerGrpc.GroupControllerImplBase {

  // The longest the copies of a group may take when the caller sets no deadline.
  private static final Duration COPY_LIMIT = Duration.ofHours(2);

  private final GroupSnapshots groups;

  public GroupControllerService(GroupSnapshots groups) {
    this.groups = groups;
  }

  @Override
  public void groupControllerGetCapabilities(
      GroupControllerGetCapabilitiesRequest request,
      StreamObserver<GroupControllerGetCapabilitiesResponse> observer) {
    Rpc.unary(
        "GroupControllerGetCapabilities",
        null,
        observer,
        () -> {
          GroupControllerGetCapabilitiesResponse.Builder response =
              GroupControllerGetCapabilitiesResponse.newBuilder();
          response
              .addCapabilitiesBuilder()
              .getRpcBuilder()
              .setType(
                  GroupControllerServiceCapability.RPC
                      .Type
                      .CREATE_DELETE_GET_VOLUME_GROUP_SNAPSHOT);
          return response.build();
        });
  }

  @Override
  public void createVolumeGroupSnapshot(
      CreateVolumeGroupSnapshotRequest request,
      StreamObserver<CreateVolumeGroupSnapshotResponse> observer) {
    Rpc.unary(
        "CreateVolumeGroupSnapshot",
        request.getName(),
        observer,
        () -> {
          String name = Requests.name(request.getName(), "name");
          List<String> sources = sourceVolumeIds(request.getSourceVolumeIdsList());
          SidecarParameters.requireOnlySidecars(
              request.getParametersMap(), "VolumeGroupSnapshotClass");
          GroupSnapshots.Group group = groups.create(name, sources, Rpc.remaining(COPY_LIMIT));
          return CreateVolumeGroupSnapshotResponse.newBuilder()
              .setGroupSnapshot(Messages.groupSnapshot(group))
              .build();
        });
  }

  @Override
  public void getVolumeGroupSnapshot(
      GetVolumeGroupSnapshotRequest request,
      StreamObserver<GetVolumeGroupSnapshotResponse> observer) {
    Rpc.unary(
        "GetVolumeGroupSnapshot",
        request.getGroupSnapshotId(),
        observer,
        () -> {
          Requests.requirePresent(request.getGroupSnapshotId(), "group_snapshot_id");
          List<String> snapshotIds = snapshotIds(request.getSnapshotIdsList());
          GroupSnapshots.Group group = groups.get(request.getGroupSnapshotId(), snapshotIds);
          return GetVolumeGroupSnapshotResponse.newBuilder()
              .setGroupSnapshot(Messages.groupSnapshot(group))
              .build();
        });
  }

  @Override
  public void deleteVolumeGroupSnapshot(
      DeleteVolumeGroupSnapshotRequest request,
      StreamObserver<DeleteVolumeGroupSnapshotResponse> observer) {
    Rpc.unary(
        "DeleteVolumeGroupSnapshot",
        request.getGroupSnapshotId(),
        observer,
        () -> {
          Requests.requirePresent(request.getGroupSnapshotId(), "group_snapshot_id");
          groups.delete(request.getGroupSnapshotId(), snapshotIds(request.getSnapshotIdsList()));
          return DeleteVolumeGroupSnapshotResponse.getDefaultInstance();
        });
  }

  private static List<String> sourceVolumeIds(List<String> ids) {
    if (ids.isEmpty()) {
      throw CsiException.invalidArgument("source_volume_ids is required");
    }
    requireDistinct(ids, "source_volume_ids");
    ids.forEach(Requests::volumeId);
    return ids;
  }

  /**
   * The caller's list of the group's snapshots. An empty list cannot be told from an absent one (a
   * repeated field), and the driver knows its groups' members: empty asks for no check.
   */
  private static List<String> snapshotIds(List<String> ids) {
    requireDistinct(ids, "snapshot_ids");
    return ids;
  }

  private static void requireDistinct(List<String> ids, String field) {
    Set<String> seen = new HashSet<>();
    for (String id : ids) {
      if (id.isEmpty()) {
        throw CsiException.invalidArgument("%s holds an empty id", field);
      }
      if (!seen.add(id)) {
        throw CsiException.invalidArgument("%s names %s twice", field, Requests.shown(id));
      }
    }
  }
}
