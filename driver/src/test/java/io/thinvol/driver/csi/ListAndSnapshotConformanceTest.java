package io.thinvol.driver.csi;

import static io.thinvol.driver.GrpcAssertions.assertCode;
import static org.assertj.core.api.Assertions.assertThat;

import csi.v1.ControllerGrpc;
import csi.v1.CreateSnapshotRequest;
import csi.v1.DeleteSnapshotRequest;
import csi.v1.ListSnapshotsRequest;
import csi.v1.ListSnapshotsResponse;
import csi.v1.ListVolumesRequest;
import csi.v1.ListVolumesResponse;
import csi.v1.Snapshot;
import io.grpc.Status;
import io.thinvol.driver.DriverHarness;
import io.thinvol.driver.client.Capabilities;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** ListVolumes, ListSnapshots and the snapshot RPCs against a running driver. */
class ListAndSnapshotConformanceTest {

  private static final long MIB = 1L << 20;
  private static DriverHarness driver;
  private static ControllerGrpc.ControllerBlockingStub controller;
  private static final List<String> volumes = new ArrayList<>();

  @BeforeAll
  static void start() throws IOException {
    driver = new DriverHarness();
    controller = driver.csi().controller();
    for (int i = 0; i < 5; i++) {
      volumes.add(driver.create("listed-" + i, 16 * MIB, Capabilities.mount("ext4")));
    }
  }

  @AfterAll
  static void stop() throws IOException {
    driver.close();
  }

  @Test
  @DisplayName("ListVolumes pages through every volume exactly once")
  void listVolumesPages() {
    List<String> seen = new ArrayList<>();
    String token = "";
    int pages = 0;
    do {
      ListVolumesResponse page =
          controller.listVolumes(
              ListVolumesRequest.newBuilder().setMaxEntries(2).setStartingToken(token).build());
      assertThat(page.getEntriesCount()).isBetween(1, 2);
      page.getEntriesList().forEach(e -> seen.add(e.getVolume().getVolumeId()));
      page.getEntriesList()
          .forEach(e -> assertThat(e.getStatus().getVolumeCondition().getAbnormal()).isFalse());
      token = page.getNextToken();
      pages++;
    } while (!token.isEmpty());
    assertThat(pages).isEqualTo(3);
    assertThat(seen).containsExactlyInAnyOrderElementsOf(volumes).doesNotHaveDuplicates();
    assertThat(controller.listVolumes(ListVolumesRequest.getDefaultInstance()).getEntriesCount())
        .isEqualTo(5);
  }

  @Test
  @DisplayName("ListVolumes: a token it did not issue is ABORTED, a negative max INVALID_ARGUMENT")
  void listVolumesBadInput() {
    assertCode(
        Status.Code.ABORTED,
        () ->
            controller.listVolumes(ListVolumesRequest.newBuilder().setStartingToken("42").build()));
    assertCode(
        Status.Code.INVALID_ARGUMENT,
        () -> controller.listVolumes(ListVolumesRequest.newBuilder().setMaxEntries(-1).build()));
  }

  @Test
  @DisplayName("Snapshots: create, repeat, conflict, list with filters and pages, delete")
  void snapshots() {
    assertCode(
        Status.Code.INVALID_ARGUMENT,
        () ->
            controller.createSnapshot(
                CreateSnapshotRequest.newBuilder().setSourceVolumeId(volumes.get(0)).build()));
    assertCode(
        Status.Code.INVALID_ARGUMENT,
        () -> controller.createSnapshot(CreateSnapshotRequest.newBuilder().setName("s").build()));
    assertCode(
        Status.Code.NOT_FOUND,
        () ->
            controller.createSnapshot(
                CreateSnapshotRequest.newBuilder()
                    .setName("s")
                    .setSourceVolumeId("vol-ffffffffffffffffffffffffffffffff")
                    .build()));

    Snapshot a = snapshot("snap-a", volumes.get(0));
    assertThat(a.getReadyToUse()).isTrue();
    assertThat(a.getSizeBytes()).isEqualTo(16 * MIB);
    assertThat(a.getSourceVolumeId()).isEqualTo(volumes.get(0));
    assertThat(a.getCreationTime().getSeconds()).isPositive();
    assertThat(snapshot("snap-a", volumes.get(0)).getSnapshotId()).isEqualTo(a.getSnapshotId());
    assertCode(
        Status.Code.ALREADY_EXISTS,
        () ->
            controller.createSnapshot(
                CreateSnapshotRequest.newBuilder()
                    .setName("snap-a")
                    .setSourceVolumeId(volumes.get(1))
                    .build()));
    Snapshot b = snapshot("snap-b", volumes.get(1));
    Snapshot c = snapshot("snap-c", volumes.get(1));

    assertThat(list(ListSnapshotsRequest.newBuilder().setSnapshotId(b.getSnapshotId())))
        .containsExactly(b.getSnapshotId());
    assertThat(
            list(
                ListSnapshotsRequest.newBuilder()
                    .setSnapshotId("snap-00000000000000000000000000000000")))
        .isEmpty();
    assertThat(list(ListSnapshotsRequest.newBuilder().setSourceVolumeId(volumes.get(1))))
        .containsExactlyInAnyOrder(b.getSnapshotId(), c.getSnapshotId());
    ListSnapshotsResponse first =
        controller.listSnapshots(ListSnapshotsRequest.newBuilder().setMaxEntries(2).build());
    assertThat(first.getEntriesCount()).isEqualTo(2);
    ListSnapshotsResponse second =
        controller.listSnapshots(
            ListSnapshotsRequest.newBuilder()
                .setMaxEntries(2)
                .setStartingToken(first.getNextToken())
                .build());
    assertThat(second.getEntriesCount()).isEqualTo(1);
    assertThat(second.getNextToken()).isEmpty();
    assertCode(
        Status.Code.ABORTED,
        () ->
            controller.listSnapshots(
                ListSnapshotsRequest.newBuilder().setStartingToken("page-2").build()));

    assertCode(
        Status.Code.INVALID_ARGUMENT,
        () -> controller.deleteSnapshot(DeleteSnapshotRequest.getDefaultInstance()));
    for (Snapshot s : List.of(a, b, c)) {
      controller.deleteSnapshot(
          DeleteSnapshotRequest.newBuilder().setSnapshotId(s.getSnapshotId()).build());
      controller.deleteSnapshot(
          DeleteSnapshotRequest.newBuilder().setSnapshotId(s.getSnapshotId()).build());
    }
    assertThat(list(ListSnapshotsRequest.newBuilder())).isEmpty();
  }

  private static Snapshot snapshot(String name, String source) {
    return controller
        .createSnapshot(
            CreateSnapshotRequest.newBuilder().setName(name).setSourceVolumeId(source).build())
        .getSnapshot();
  }

  private static List<String> list(ListSnapshotsRequest.Builder request) {
    return controller.listSnapshots(request.build()).getEntriesList().stream()
        .map(e -> e.getSnapshot().getSnapshotId())
        .toList();
  }
}
