package io.thinvol.driver.csi;

import static io.thinvol.driver.GrpcAssertions.assertCode;
import static io.thinvol.driver.GrpcAssertions.message;
import static org.assertj.core.api.Assertions.assertThat;

import csi.v1.CreateSnapshotRequest;
import csi.v1.CreateVolumeGroupSnapshotRequest;
import csi.v1.Snapshot;
import csi.v1.VolumeGroupSnapshot;
import io.grpc.Status;
import io.thinvol.driver.DriverHarness;
import io.thinvol.driver.client.Capabilities;
import io.thinvol.driver.client.CsiClient;
import java.io.IOException;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The keys csi-snapshotter adds with {@code --extra-create-metadata=true} (the operator starts it
 * so) are accepted; a class parameter of the user's is still refused by name.
 */
class SidecarParametersTest {

  private static final long MIB = 1L << 20;
  // As external-snapshotter's sidecar controller adds them (pkg/utils/util.go).
  private static final Map<String, String> SNAPSHOT_METADATA =
      Map.of(
          "csi.storage.k8s.io/volumesnapshot/name", "daily",
          "csi.storage.k8s.io/volumesnapshot/namespace", "apps",
          "csi.storage.k8s.io/volumesnapshotcontent/name",
              "snapcontent-0b3f2c1e-54a9-4f6e-9d3b-3c1f2a7e8d90");
  private static final Map<String, String> GROUP_METADATA =
      Map.of(
          "csi.storage.k8s.io/volumegroupsnapshot/name", "together",
          "csi.storage.k8s.io/volumegroupsnapshot/namespace", "apps",
          "csi.storage.k8s.io/volumegroupsnapshotcontent/name",
              "groupsnapcontent-6c1d0f3a-2b7e-4a59-8e14-0d9c3b2a1f47");

  private static DriverHarness driver;
  private static CsiClient csi;
  private static String volume;

  @BeforeAll
  static void start() throws IOException {
    driver = new DriverHarness();
    csi = driver.csi();
    volume = driver.create("source", 16 * MIB, Capabilities.mount("ext4"));
  }

  @AfterAll
  static void stop() throws IOException {
    driver.close();
  }

  @Test
  @DisplayName("CreateSnapshot takes the VolumeSnapshot's and content's names the sidecar adds")
  void snapshotWithSidecarMetadata() {
    Snapshot snapshot =
        csi.controller()
            .createSnapshot(
                snapshotRequest("with-metadata").putAllParameters(SNAPSHOT_METADATA).build())
            .getSnapshot();

    assertThat(snapshot.getReadyToUse()).isTrue();
    assertThat(snapshot.getSourceVolumeId()).isEqualTo(volume);
  }

  @Test
  @DisplayName("CreateSnapshot still refuses a parameter of its own, naming only that one")
  void snapshotWithUnknownParameter() {
    String refused =
        message(
            assertCode(
                Status.Code.INVALID_ARGUMENT,
                () ->
                    csi.controller()
                        .createSnapshot(
                            snapshotRequest("typo")
                                .putAllParameters(SNAPSHOT_METADATA)
                                .putParameters("compress", "true")
                                .build())));

    assertThat(refused)
        .contains("VolumeSnapshotClass", "[compress]")
        .doesNotContain("volumesnapshot/");
  }

  @Test
  @DisplayName("CreateVolumeGroupSnapshot takes the group's names the sidecar adds")
  void groupWithSidecarMetadata() {
    VolumeGroupSnapshot group =
        csi.groupController()
            .createVolumeGroupSnapshot(
                groupRequest("group-with-metadata").putAllParameters(GROUP_METADATA).build())
            .getGroupSnapshot();

    assertThat(group.getReadyToUse()).isTrue();
    assertThat(group.getSnapshotsList())
        .extracting(Snapshot::getSourceVolumeId)
        .containsExactly(volume);
  }

  @Test
  @DisplayName("CreateVolumeGroupSnapshot still refuses a parameter of its own")
  void groupWithUnknownParameter() {
    String refused =
        message(
            assertCode(
                Status.Code.INVALID_ARGUMENT,
                () ->
                    csi.groupController()
                        .createVolumeGroupSnapshot(
                            groupRequest("group-typo")
                                .putAllParameters(GROUP_METADATA)
                                .putParameters("speed", "fast")
                                .build())));

    assertThat(refused).contains("VolumeGroupSnapshotClass", "[speed]");
  }

  private static CreateSnapshotRequest.Builder snapshotRequest(String name) {
    return CreateSnapshotRequest.newBuilder().setName(name).setSourceVolumeId(volume);
  }

  private static CreateVolumeGroupSnapshotRequest.Builder groupRequest(String name) {
    return CreateVolumeGroupSnapshotRequest.newBuilder().setName(name).addSourceVolumeIds(volume);
  }
}
