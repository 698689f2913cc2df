package io.thinvol.driver.csi;

import static io.thinvol.driver.GrpcAssertions.assertCode;
import static io.thinvol.driver.GrpcAssertions.message;
import static org.assertj.core.api.Assertions.assertThat;

import csi.v1.ControllerGetCapabilitiesRequest;
import csi.v1.ControllerServiceCapability;
import csi.v1.CreateSnapshotRequest;
import csi.v1.DeleteVolumeRequest;
import csi.v1.GetSnapshotRequest;
import csi.v1.ListSnapshotsRequest;
import csi.v1.NodeExpandVolumeRequest;
import csi.v1.NodeGetVolumeStatsRequest;
import csi.v1.Snapshot;
import csi.v1.VolumeCapability;
import io.grpc.Status;
import io.thinvol.driver.DriverHarness;
import io.thinvol.driver.client.Capabilities;
import io.thinvol.driver.host.MountTable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Rows of the spec's tables that an independent conformance run found answered wrongly, each quoted
 * in its test's name, and the GetSnapshot RPC's table.
 */
class SpecRowsTest {

  private static final String UNKNOWN = "vol-ffffffffffffffffffffffffffffffff";
  private DriverHarness driver;

  @BeforeEach
  void start() throws IOException {
    driver = new DriverHarness();
  }

  @AfterEach
  void stop() throws IOException {
    driver.close();
  }

  @Test
  @DisplayName(
      "NodePublishVolume, second publish: 'SINGLE_NODE_SINGLE_WRITER | T1!=T2, P1=P2 |"
          + " FAILED_PRECONDITION' and '| T1!=T2, P1!=P2 | FAILED_PRECONDITION'; the first"
          + " publish is then cleaned up in order")
  void singleWriterSecondTarget() throws IOException {
    for (VolumeCapability capability :
        new VolumeCapability[] {
          withMode(
              Capabilities.mount("ext4"),
              VolumeCapability.AccessMode.Mode.SINGLE_NODE_SINGLE_WRITER),
          withMode(Capabilities.block(), VolumeCapability.AccessMode.Mode.SINGLE_NODE_SINGLE_WRITER)
        }) {
      boolean block = capability.hasBlock();
      String name = block ? "rwop-block" : "rwop-mount";
      String id = driver.create(name, 32 << 20, capability);
      Path staging = driver.staging(name);
      Path first = block ? driver.blockTarget(name + "-1") : driver.target(name + "-1");
      Path second = block ? driver.blockTarget(name + "-2") : driver.target(name + "-2");
      driver.stage(id, staging, capability);
      driver.publish(id, staging, first, capability, false);
      driver.publish(id, staging, first, capability, false); // T1=T2, P1=P2: OK

      String refusal =
          message(
              assertCode(
                  Status.Code.FAILED_PRECONDITION,
                  () -> driver.publish(id, staging, second, capability, false)));
      assertThat(refusal).contains(first.toString()).contains("SINGLE_NODE_SINGLE_WRITER");
      assertCode(
          Status.Code.FAILED_PRECONDITION,
          () -> driver.publish(id, staging, second, capability, true));
      assertThat(MountTable.read().at(second))
          .as("nothing mounted at the refused target")
          .isEmpty();

      driver.unpublish(id, first);
      driver.unstage(id, staging);
      driver
          .csi()
          .controller()
          .deleteVolume(DeleteVolumeRequest.newBuilder().setVolumeId(id).build());
      assertThat(Files.exists(first)).isFalse();
    }
  }

  @Test
  @DisplayName("NodePublishVolume, second publish: 'SINGLE_NODE_MULTI_WRITER | T1!=T2, P1=P2 | OK'")
  void multiWriterSecondTarget() {
    VolumeCapability capability =
        withMode(
            Capabilities.mount("ext4"), VolumeCapability.AccessMode.Mode.SINGLE_NODE_MULTI_WRITER);
    String id = driver.create("rwo", 32 << 20, capability);
    driver.stage(id, driver.staging("rwo"), capability);
    driver.publish(id, driver.staging("rwo"), driver.target("a"), capability, false);
    driver.publish(id, driver.staging("rwo"), driver.target("b"), capability, false);
    assertThat(MountTable.read().at(driver.target("b"))).isPresent();
    driver.unpublish(id, driver.target("a"));
    driver.unpublish(id, driver.target("b"));
    driver.unstage(id, driver.staging("rwo"));
  }

  @Test
  @DisplayName(
      "NodeGetVolumeStats and NodeExpandVolume: 'Volume does not exist (on the specified"
          + " volume_path) | 5 NOT_FOUND' for a relative volume_path, known volume or not")
  void relativeVolumePathIsNotFound() {
    String id = driver.create("stats", 32 << 20, Capabilities.mount("ext4"));
    for (String volumeId : new String[] {UNKNOWN, id}) {
      assertCode(
          Status.Code.NOT_FOUND,
          () ->
              driver
                  .csi()
                  .node()
                  .nodeGetVolumeStats(
                      NodeGetVolumeStatsRequest.newBuilder()
                          .setVolumeId(volumeId)
                          .setVolumePath("some/relative/path")
                          .build()));
      assertCode(
          Status.Code.NOT_FOUND,
          () ->
              driver
                  .csi()
                  .node()
                  .nodeExpandVolume(
                      NodeExpandVolumeRequest.newBuilder()
                          .setVolumeId(volumeId)
                          .setVolumePath("some/relative/path")
                          .build()));
    }
    assertCode(
        Status.Code.INVALID_ARGUMENT,
        () ->
            driver
                .csi()
                .node()
                .nodeGetVolumeStats(
                    NodeGetVolumeStatsRequest.newBuilder().setVolumeId(id).build()));
  }

  @Test
  @DisplayName(
      "GetSnapshot: GET_SNAPSHOT advertised; missing snapshot_id INVALID_ARGUMENT; 'Snapshot does"
          + " not exist | 5 NOT_FOUND'; an existing one as ListSnapshots shows it")
  void getSnapshot() {
    var controller = driver.csi().controller();
    assertThat(
            controller
                .controllerGetCapabilities(ControllerGetCapabilitiesRequest.getDefaultInstance())
                .getCapabilitiesList())
        .extracting(c -> c.getRpc().getType())
        .contains(ControllerServiceCapability.RPC.Type.GET_SNAPSHOT);
    assertCode(
        Status.Code.INVALID_ARGUMENT,
        () -> controller.getSnapshot(GetSnapshotRequest.getDefaultInstance()));
    assertCode(
        Status.Code.NOT_FOUND,
        () ->
            controller.getSnapshot(
                GetSnapshotRequest.newBuilder()
                    .setSnapshotId("snap-ffffffffffffffffffffffffffffffff")
                    .build()));
    assertCode(
        Status.Code.NOT_FOUND,
        () ->
            controller.getSnapshot(
                GetSnapshotRequest.newBuilder().setSnapshotId("../../etc").build()));

    String id = driver.create("src", 32 << 20, Capabilities.mount("ext4"));
    Snapshot created =
        controller
            .createSnapshot(
                CreateSnapshotRequest.newBuilder().setName("s1").setSourceVolumeId(id).build())
            .getSnapshot();
    Snapshot fetched =
        controller
            .getSnapshot(
                GetSnapshotRequest.newBuilder().setSnapshotId(created.getSnapshotId()).build())
            .getSnapshot();
    Snapshot listed =
        controller
            .listSnapshots(
                ListSnapshotsRequest.newBuilder().setSnapshotId(created.getSnapshotId()).build())
            .getEntries(0)
            .getSnapshot();
    assertThat(fetched).isEqualTo(listed).isEqualTo(created);
    assertThat(fetched.getSourceVolumeId()).isEqualTo(id);
    assertThat(fetched.getReadyToUse()).isTrue();
  }

  private static VolumeCapability withMode(
      VolumeCapability capability, VolumeCapability.AccessMode.Mode mode) {
    return capability.toBuilder()
        .setAccessMode(VolumeCapability.AccessMode.newBuilder().setMode(mode))
        .build();
  }
}
