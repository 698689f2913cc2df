package io.thinvol.driver.csi;

import static io.thinvol.driver.GrpcAssertions.assertCode;
import static io.thinvol.driver.GrpcAssertions.message;
import static io.thinvol.driver.client.ContentSources.snapshotSource;
import static org.assertj.core.api.Assertions.assertThat;

import csi.v1.CreateVolumeGroupSnapshotRequest;
import csi.v1.DeleteSnapshotRequest;
import csi.v1.DeleteVolumeGroupSnapshotRequest;
import csi.v1.GetCapacityRequest;
import csi.v1.GetPluginCapabilitiesRequest;
import csi.v1.GetVolumeGroupSnapshotRequest;
import csi.v1.GetVolumeGroupSnapshotResponse;
import csi.v1.GroupControllerGetCapabilitiesRequest;
import csi.v1.GroupControllerServiceCapability;
import csi.v1.ListSnapshotsRequest;
import csi.v1.PluginCapability;
import csi.v1.VolumeGroupSnapshot;
import io.grpc.Status;
import io.thinvol.driver.DriverHarness;
import io.thinvol.driver.client.Capabilities;
import io.thinvol.driver.client.CsiClient;
import io.thinvol.driver.preflight.DataFiles;
import io.thinvol.driver.store.DataLayout;
import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The GroupController RPCs against a running driver, row by row of the spec's error tables. */
class GroupSnapshotConformanceTest {

  private static final long MIB = 1L << 20;
  private static final String ELSEWHERE = "vol-0123456789abcdef0123456789abcdef";
  private static DriverHarness driver;
  private static CsiClient csi;
  private static String a;
  private static String b;

  @BeforeAll
  static void start() throws IOException {
    driver = new DriverHarness();
    csi = driver.csi();
    a = driver.create("a", 16 * MIB, Capabilities.mount("ext4"));
    b = driver.create("b", 16 * MIB, Capabilities.block());
  }

  @AfterAll
  static void stop() throws IOException {
    driver.close();
  }

  @Test
  @DisplayName(
      "The plugin advertises GROUP_CONTROLLER_SERVICE and CREATE_DELETE_GET_VOLUME_GROUP_SNAPSHOT")
  void capabilities() {
    assertThat(
            csi.identity()
                .getPluginCapabilities(GetPluginCapabilitiesRequest.getDefaultInstance())
                .getCapabilitiesList())
        .extracting(c -> c.getService().getType())
        .contains(PluginCapability.Service.Type.GROUP_CONTROLLER_SERVICE);
    assertThat(
            csi.groupController()
                .groupControllerGetCapabilities(
                    GroupControllerGetCapabilitiesRequest.getDefaultInstance())
                .getCapabilitiesList())
        .extracting(c -> c.getRpc().getType())
        .containsExactly(
            GroupControllerServiceCapability.RPC.Type.CREATE_DELETE_GET_VOLUME_GROUP_SNAPSHOT);
  }

  @Test
  @DisplayName(
      "CreateVolumeGroupSnapshot is idempotent by name (any order of the volumes); the members are"
          + " ordinary, restorable snapshots that name their group")
  void createIsIdempotent() {
    VolumeGroupSnapshot group = Groups.create(csi, "same", a, b);
    assertThat(group.getReadyToUse()).isTrue();
    assertThat(group.getSnapshotsList())
        .extracting(s -> s.getSourceVolumeId())
        .containsExactly(a, b);
    assertThat(group.getSnapshotsList())
        .allSatisfy(
            s -> {
              assertThat(s.getGroupSnapshotId()).isEqualTo(group.getGroupSnapshotId());
              assertThat(s.getReadyToUse()).isTrue();
              assertThat(s.getCreationTime()).isEqualTo(group.getCreationTime());
            });
    assertThat(Groups.create(csi, "same", b, a)).isEqualTo(group);
    assertThat(Groups.get(csi, group.getGroupSnapshotId(), Groups.snapshotIds(group)))
        .isEqualTo(group);
    assertThat(
            csi.controller()
                .listSnapshots(
                    ListSnapshotsRequest.newBuilder()
                        .setSnapshotId(Groups.memberOf(group, a))
                        .build())
                .getEntries(0)
                .getSnapshot()
                .getGroupSnapshotId())
        .isEqualTo(group.getGroupSnapshotId());

    String restored =
        csi.createVolume(
            "restored", 16 * MIB, Capabilities.block(), snapshotSource(Groups.memberOf(group, b)));
    csi.deleteVolume(restored);
    Groups.delete(csi, group.getGroupSnapshotId(), Groups.snapshotIds(group));
  }

  @Test
  @DisplayName(
      "CreateVolumeGroupSnapshot: 'Group snapshot already exists but is incompatible' is"
          + " ALREADY_EXISTS")
  void sameNameOtherVolumes() {
    VolumeGroupSnapshot group = Groups.create(csi, "taken", a, b);
    assertThat(
            message(assertCode(Status.Code.ALREADY_EXISTS, () -> Groups.create(csi, "taken", a))))
        .contains("taken")
        .contains(group.getGroupSnapshotId());
    Groups.delete(csi, group.getGroupSnapshotId(), Groups.snapshotIds(group));
  }

  @Test
  @DisplayName(
      "CreateVolumeGroupSnapshot: 'Cannot snapshot multiple volumes together' is"
          + " FAILED_PRECONDITION: volumes of another node in the group")
  void volumesOfAnotherNode() {
    assertThat(
            message(
                assertCode(
                    Status.Code.FAILED_PRECONDITION,
                    () -> Groups.create(csi, "two-nodes", a, ELSEWHERE))))
        .contains(ELSEWHERE)
        .contains(DriverHarness.NODE)
        .contains("same node");
    assertCode(Status.Code.NOT_FOUND, () -> Groups.create(csi, "nowhere", ELSEWHERE));
    assertCode(Status.Code.NOT_FOUND, () -> Groups.create(csi, "malformed", a, "not-a-volume"));
    assertThat(driver.dataDir().resolve("snapshots")).isEmptyDirectory();
  }

  @Test
  @DisplayName(
      "CreateVolumeGroupSnapshot: 'Cannot snapshot multiple volumes together' is"
          + " FAILED_PRECONDITION: a block volume in use where copies are not reflinks")
  void blockVolumeInUseWithoutReflinks() {
    String inUse = driver.create("in-use", 16 * MIB, Capabilities.block());
    driver.stage(inUse, driver.staging("in-use"), Capabilities.block());
    try {
      assertThat(
              message(
                  assertCode(
                      Status.Code.FAILED_PRECONDITION, () -> Groups.create(csi, "torn", a, inUse))))
          .contains(inUse)
          .contains("reflink");
      assertThat(driver.dataDir().resolve("snapshots")).isEmptyDirectory();
    } finally {
      driver.unstage(inUse, driver.staging("in-use"));
      csi.deleteVolume(inUse);
    }
  }

  @Test
  @DisplayName(
      "CreateVolumeGroupSnapshot: missing name or volumes, duplicate volumes and parameters are"
          + " INVALID_ARGUMENT")
  void createBadArguments() {
    assertThat(message(assertCode(Status.Code.INVALID_ARGUMENT, () -> Groups.create(csi, "", a))))
        .contains("name");
    assertThat(message(assertCode(Status.Code.INVALID_ARGUMENT, () -> Groups.create(csi, "none"))))
        .contains("source_volume_ids");
    assertThat(
            message(
                assertCode(Status.Code.INVALID_ARGUMENT, () -> Groups.create(csi, "twice", a, a))))
        .contains("twice");
    assertThat(
            message(
                assertCode(
                    Status.Code.INVALID_ARGUMENT,
                    () ->
                        csi.groupController()
                            .createVolumeGroupSnapshot(
                                CreateVolumeGroupSnapshotRequest.newBuilder()
                                    .setName("params")
                                    .addSourceVolumeIds(a)
                                    .putParameters("speed", "fast")
                                    .build()))))
        .contains("speed");
  }

  @Test
  @DisplayName(
      "DeleteVolumeGroupSnapshot: 'Snapshot list mismatch' is INVALID_ARGUMENT; unknown and"
          + " repeated deletes are OK and remove every member, with or without snapshot_ids")
  void deleteRows() {
    VolumeGroupSnapshot group = Groups.create(csi, "deleted", a, b);
    String id = group.getGroupSnapshotId();
    assertThat(
            message(
                assertCode(
                    Status.Code.INVALID_ARGUMENT,
                    () -> Groups.delete(csi, id, List.of(Groups.memberOf(group, a))))))
        .contains("do not match");
    assertCode(
        Status.Code.INVALID_ARGUMENT, () -> Groups.delete(csi, "", Groups.snapshotIds(group)));
    Groups.delete(csi, id, Groups.snapshotIds(group));
    Groups.delete(csi, id, Groups.snapshotIds(group));
    Groups.delete(csi, "group-0123456789abcdef0123456789abcdef", List.of("snap-x"));
    Groups.delete(csi, "not-a-group", List.of("snap-x"));
    // csi-sanity's row: an unknown group without snapshot_ids is already deleted
    deleteWithoutSnapshotIds("group-0123456789abcdef0123456789abcdef");
    VolumeGroupSnapshot unlisted = Groups.create(csi, "deleted-without-list", a, b);
    deleteWithoutSnapshotIds(unlisted.getGroupSnapshotId());
    assertThat(
            csi.controller()
                .listSnapshots(ListSnapshotsRequest.getDefaultInstance())
                .getEntriesList())
        .isEmpty();
    assertThat(driver.dataDir().resolve("snapshots")).isEmptyDirectory();
    assertThat(driver.dataDir().resolve("groups")).isEmptyDirectory();
  }

  private static void deleteWithoutSnapshotIds(String groupSnapshotId) {
    csi.groupController()
        .deleteVolumeGroupSnapshot(
            DeleteVolumeGroupSnapshotRequest.newBuilder()
                .setGroupSnapshotId(groupSnapshotId)
                .build());
  }

  @Test
  @DisplayName(
      "GetVolumeGroupSnapshot: 'Snapshot list mismatch' is INVALID_ARGUMENT, 'Volume group"
          + " snapshot does not exist' is NOT_FOUND, with or without snapshot_ids")
  void getRows() {
    VolumeGroupSnapshot group = Groups.create(csi, "got", a, b);
    String id = group.getGroupSnapshotId();
    assertCode(
        Status.Code.INVALID_ARGUMENT,
        () -> Groups.get(csi, id, List.of(Groups.memberOf(group, b), "snap-other")));
    assertThat(getWithoutSnapshotIds(id).getGroupSnapshot().getSnapshotsList())
        .as("no snapshot_ids: the group as the driver knows it")
        .hasSize(2);
    Groups.delete(csi, id, Groups.snapshotIds(group));
    assertThat(
            message(
                assertCode(
                    Status.Code.NOT_FOUND, () -> Groups.get(csi, id, Groups.snapshotIds(group)))))
        .contains(id);
    assertCode(Status.Code.NOT_FOUND, () -> Groups.get(csi, "../../etc", List.of("snap-x")));
    // csi-sanity's row: an unknown group without snapshot_ids
    assertCode(
        Status.Code.NOT_FOUND,
        () -> getWithoutSnapshotIds("group-0123456789abcdef0123456789abcdef"));
  }

  private static GetVolumeGroupSnapshotResponse getWithoutSnapshotIds(String groupSnapshotId) {
    return csi.groupController()
        .getVolumeGroupSnapshot(
            GetVolumeGroupSnapshotRequest.newBuilder().setGroupSnapshotId(groupSnapshotId).build());
  }

  @Test
  @DisplayName(
      "DeleteSnapshot: 'Snapshot is part of a group' is INVALID_ARGUMENT and the member stays")
  void memberIsDeletedOnlyWithItsGroup() {
    VolumeGroupSnapshot group = Groups.create(csi, "members", a, b);
    String member = Groups.memberOf(group, a);
    assertThat(
            message(
                assertCode(
                    Status.Code.INVALID_ARGUMENT,
                    () ->
                        csi.controller()
                            .deleteSnapshot(
                                DeleteSnapshotRequest.newBuilder().setSnapshotId(member).build()))))
        .contains(group.getGroupSnapshotId())
        .contains("DeleteVolumeGroupSnapshot");
    assertThat(new DataLayout(driver.dataDir()).snapshotImage(member)).exists();
    Groups.delete(csi, group.getGroupSnapshotId(), Groups.snapshotIds(group));
  }

  @Test
  @DisplayName(
      "CreateVolumeGroupSnapshot: 'Not enough space to create group snapshot' is RESOURCE_EXHAUSTED, nothing is left")
  void notEnoughSpace() throws Exception {
    try (DriverHarness small = DriverHarness.onSmallDataDir(64 * MIB, 1000)) {
      String first = small.create("first", 16 * MIB, Capabilities.block());
      String second = small.create("second", 16 * MIB, Capabilities.block());
      DataLayout layout = new DataLayout(small.dataDir());
      DataFiles.writeRandomToDevice(layout.volumeImage(first), 12 * MIB);
      DataFiles.writeRandomToDevice(layout.volumeImage(second), 12 * MIB);
      long left =
          small
              .csi()
              .controller()
              .getCapacity(GetCapacityRequest.getDefaultInstance())
              .getAvailableCapacity();
      // room for one copy of 12 MiB, not for two
      small.create("filler", ((left - 18 * MIB) / MIB) * MIB, Capabilities.block());
      assertThat(
              message(
                  assertCode(
                      Status.Code.RESOURCE_EXHAUSTED,
                      () -> Groups.create(small.csi(), "too-big", first, second))))
          .contains("snapshot");
      assertThat(small.dataDir().resolve("snapshots")).isEmptyDirectory();
      assertThat(small.dataDir().resolve("groups")).isEmptyDirectory();
    }
  }
}
