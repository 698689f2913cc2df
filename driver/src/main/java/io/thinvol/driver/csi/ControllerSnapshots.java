package io.thinvol.driver.csi;

import csi.v1.CreateSnapshotRequest;
import csi.v1.CreateSnapshotResponse;
import csi.v1.DeleteSnapshotRequest;
import csi.v1.DeleteSnapshotResponse;
import csi.v1.GetSnapshotRequest;
import csi.v1.GetSnapshotResponse;
import csi.v1.ListSnapshotsRequest;
import csi.v1.ListSnapshotsResponse;
import io.thinvol.driver.core.CsiException;
import io.thinvol.driver.core.VolumeManager;
import io.thinvol.driver.store.Ids;
import io.thinvol.driver.store.SnapshotRecord;
import java.time.Duration;
import java.util.List;

/** The snapshot RPCs of the Controller service: request checks and answers. */
final class ControllerSnapshots {

  // The longest a snapshot's copy may take when the caller sets no deadline.
  private static final Duration COPY_LIMIT = Duration.ofHours(2);

  private final VolumeManager volumes;

  ControllerSnapshots(VolumeManager volumes) {
    this.volumes = volumes;
  }

  CreateSnapshotResponse create(CreateSnapshotRequest request) {
    String name = Requests.name(request.getName(), "name");
    Requests.requirePresent(request.getSourceVolumeId(), "source_volume_id");
    SidecarParameters.requireOnlySidecars(request.getParametersMap(), "VolumeSnapshotClass");
    String source = Requests.volumeId(request.getSourceVolumeId());
    SnapshotRecord record = volumes.snapshots().create(name, source, Rpc.remaining(COPY_LIMIT));
    return CreateSnapshotResponse.newBuilder().setSnapshot(Messages.snapshot(record)).build();
  }

  DeleteSnapshotResponse delete(DeleteSnapshotRequest request) {
    Requests.requirePresent(request.getSnapshotId(), "snapshot_id");
    volumes.snapshots().delete(request.getSnapshotId());
    return DeleteSnapshotResponse.getDefaultInstance();
  }

  /** The spec's table: a missing id is INVALID_ARGUMENT, an unknown one NOT_FOUND. */
  GetSnapshotResponse get(GetSnapshotRequest request) {
    String id = Requests.snapshotId(request.getSnapshotId(), "snapshot_id");
    SnapshotRecord record =
        volumes
            .catalog()
            .snapshot(id)
            .orElseThrow(() -> CsiException.notFound("snapshot %s does not exist", id));
    return GetSnapshotResponse.newBuilder().setSnapshot(Messages.snapshot(record)).build();
  }

  ListSnapshotsResponse list(ListSnapshotsRequest request) {
    List<SnapshotRecord> matching =
        volumes.catalog().snapshots().stream()
            .filter(
                s -> request.getSnapshotId().isEmpty() || s.id().equals(request.getSnapshotId()))
            .filter(
                s ->
                    request.getSourceVolumeId().isEmpty()
                        || s.sourceVolumeId().equals(request.getSourceVolumeId()))
            .toList();
    Pages.Page<SnapshotRecord> page =
        Pages.page(
            matching,
            SnapshotRecord::id,
            Ids::isSnapshotId,
            request.getMaxEntries(),
            request.getStartingToken());
    ListSnapshotsResponse.Builder response =
        ListSnapshotsResponse.newBuilder().setNextToken(page.nextToken());
    page.entries().forEach(s -> response.addEntriesBuilder().setSnapshot(Messages.snapshot(s)));
    return response.build();
  }
}
