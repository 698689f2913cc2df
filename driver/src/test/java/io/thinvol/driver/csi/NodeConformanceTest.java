package io.thinvol.driver.csi;

import static io.thinvol.driver.GrpcAssertions.assertCode;
import static io.thinvol.driver.GrpcAssertions.message;
import static org.assertj.core.api.Assertions.assertThat;

import csi.v1.DeleteVolumeRequest;
import csi.v1.GetPluginCapabilitiesRequest;
import csi.v1.GetPluginInfoRequest;
import csi.v1.NodeExpandVolumeRequest;
import csi.v1.NodeGetCapabilitiesRequest;
import csi.v1.NodeGetInfoRequest;
import csi.v1.NodeGetInfoResponse;
import csi.v1.NodeGetVolumeStatsRequest;
import csi.v1.NodeGrpc;
import csi.v1.NodePublishVolumeRequest;
import csi.v1.NodeServiceCapability;
import csi.v1.NodeStageVolumeRequest;
import csi.v1.NodeUnpublishVolumeRequest;
import csi.v1.NodeUnstageVolumeRequest;
import csi.v1.PluginCapability;
import csi.v1.ProbeRequest;
import io.grpc.Status;
import io.thinvol.driver.DriverHarness;
import io.thinvol.driver.client.Capabilities;
import io.thinvol.driver.config.DriverConfig;
import java.io.IOException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The spec's Node and Identity error tables against a running driver. */
class NodeConformanceTest {

  private static final String UNKNOWN = "vol-ffffffffffffffffffffffffffffffff";
  private DriverHarness driver;
  private NodeGrpc.NodeBlockingStub node;

  @BeforeEach
  void start() throws IOException {
    driver = new DriverHarness();
    node = driver.csi().node();
  }

  @AfterEach
  void stop() throws IOException {
    driver.close();
  }

  @Test
  @DisplayName("Identity: name, version, capabilities and a ready probe")
  void identity() {
    var info = driver.csi().identity().getPluginInfo(GetPluginInfoRequest.getDefaultInstance());
    assertThat(info.getName()).isEqualTo("test.thinvol.io");
    assertThat(info.getVendorVersion()).isEqualTo("test");
    assertThat(
            driver
                .csi()
                .identity()
                .getPluginCapabilities(GetPluginCapabilitiesRequest.getDefaultInstance())
                .getCapabilitiesList())
        .contains(
            PluginCapability.newBuilder()
                .setService(
                    PluginCapability.Service.newBuilder()
                        .setType(PluginCapability.Service.Type.CONTROLLER_SERVICE))
                .build(),
            PluginCapability.newBuilder()
                .setService(
                    PluginCapability.Service.newBuilder()
                        .setType(PluginCapability.Service.Type.VOLUME_ACCESSIBILITY_CONSTRAINTS))
                .build(),
            PluginCapability.newBuilder()
                .setVolumeExpansion(
                    PluginCapability.VolumeExpansion.newBuilder()
                        .setType(PluginCapability.VolumeExpansion.Type.ONLINE))
                .build());
    assertThat(
            driver.csi().identity().probe(ProbeRequest.getDefaultInstance()).getReady().getValue())
        .isTrue();
  }

  @Test
  @DisplayName("Probe stays ready while the data dir is unusable: that is readiness, not liveness")
  void probeReadyWhileServing() throws IOException {
    driver.loseDataDir();
    assertThat(
            driver.csi().identity().probe(ProbeRequest.getDefaultInstance()).getReady().getValue())
        .isTrue();
    driver.restoreDataDir();
    assertThat(
            driver.csi().identity().probe(ProbeRequest.getDefaultInstance()).getReady().getValue())
        .isTrue();
  }

  @Test
  @DisplayName("NodeGetInfo and NodeGetCapabilities")
  void nodeInfo() {
    NodeGetInfoResponse info = node.nodeGetInfo(NodeGetInfoRequest.getDefaultInstance());
    assertThat(info.getNodeId()).isEqualTo(DriverHarness.NODE);
    assertThat(info.getMaxVolumesPerNode()).isEqualTo(1000);
    assertThat(info.getAccessibleTopology().getSegmentsMap())
        .containsEntry(DriverConfig.TOPOLOGY_KEY, DriverHarness.NODE);
    assertThat(
            node.nodeGetCapabilities(NodeGetCapabilitiesRequest.getDefaultInstance())
                .getCapabilitiesList())
        .extracting(c -> c.getRpc().getType())
        .contains(
            NodeServiceCapability.RPC.Type.STAGE_UNSTAGE_VOLUME,
            NodeServiceCapability.RPC.Type.GET_VOLUME_STATS,
            NodeServiceCapability.RPC.Type.EXPAND_VOLUME,
            NodeServiceCapability.RPC.Type.VOLUME_CONDITION);
  }

  @Test
  @DisplayName(
      "NodeStage: missing fields INVALID_ARGUMENT, unknown NOT_FOUND, wrong type FAILED_PRECONDITION")
  void stageErrors() {
    String id = driver.create("staged", 32 << 20, Capabilities.mount("ext4"));
    String staging = driver.staging("s").toString();
    assertCode(
        Status.Code.INVALID_ARGUMENT,
        () ->
            node.nodeStageVolume(
                NodeStageVolumeRequest.newBuilder()
                    .setStagingTargetPath(staging)
                    .setVolumeCapability(Capabilities.mount("ext4"))
                    .build()));
    assertCode(
        Status.Code.INVALID_ARGUMENT,
        () ->
            node.nodeStageVolume(
                NodeStageVolumeRequest.newBuilder()
                    .setVolumeId(id)
                    .setVolumeCapability(Capabilities.mount("ext4"))
                    .build()));
    assertCode(
        Status.Code.INVALID_ARGUMENT,
        () ->
            node.nodeStageVolume(
                NodeStageVolumeRequest.newBuilder()
                    .setVolumeId(id)
                    .setStagingTargetPath(staging)
                    .build()));
    assertCode(
        Status.Code.NOT_FOUND,
        () ->
            node.nodeStageVolume(
                NodeStageVolumeRequest.newBuilder()
                    .setVolumeId(UNKNOWN)
                    .setStagingTargetPath(staging)
                    .setVolumeCapability(Capabilities.mount("ext4"))
                    .build()));
    assertCode(
        Status.Code.FAILED_PRECONDITION,
        () -> driver.stage(id, driver.staging("s"), Capabilities.block()));
    assertCode(
        Status.Code.FAILED_PRECONDITION,
        () -> driver.stage(id, driver.staging("s"), Capabilities.mount("xfs")));
  }

  @Test
  @DisplayName("Stage and publish are idempotent; a different device at the path is ALREADY_EXISTS")
  void stagePublishIdempotency() {
    String id = driver.create("twice", 32 << 20, Capabilities.mount("ext4"));
    String other = driver.create("other", 32 << 20, Capabilities.mount("ext4"));
    driver.stage(id, driver.staging("s"), Capabilities.mount("ext4"));
    driver.stage(id, driver.staging("s"), Capabilities.mount("ext4"));
    assertCode(
        Status.Code.ALREADY_EXISTS,
        () -> driver.stage(other, driver.staging("s"), Capabilities.mount("ext4")));
    driver.publish(id, driver.staging("s"), driver.target("p"), Capabilities.mount("ext4"), false);
    driver.publish(id, driver.staging("s"), driver.target("p"), Capabilities.mount("ext4"), false);
    assertCode(
        Status.Code.ALREADY_EXISTS,
        () ->
            driver.publish(
                id, driver.staging("s"), driver.target("p"), Capabilities.mount("ext4"), true));
    assertThat(
            message(
                assertCode(
                    Status.Code.FAILED_PRECONDITION,
                    () -> driver.unstage(id, driver.staging("s")))))
        .contains("still published");
    assertThat(
            message(
                assertCode(
                    Status.Code.FAILED_PRECONDITION,
                    () ->
                        driver
                            .csi()
                            .controller()
                            .deleteVolume(
                                DeleteVolumeRequest.newBuilder().setVolumeId(id).build()))))
        .contains("staged");
    driver.unpublish(id, driver.target("p"));
    driver.unpublish(id, driver.target("p"));
    assertThat(driver.target("p")).doesNotExist();
    driver.unstage(id, driver.staging("s"));
    driver.unstage(id, driver.staging("s"));
  }

  @Test
  @DisplayName("NodePublish: missing fields, no staging path, unknown volume")
  void publishErrors() {
    String id = driver.create("pub", 32 << 20, Capabilities.mount("ext4"));
    String target = driver.target("t").toString();
    assertCode(
        Status.Code.INVALID_ARGUMENT,
        () ->
            node.nodePublishVolume(
                NodePublishVolumeRequest.newBuilder()
                    .setVolumeId(id)
                    .setVolumeCapability(Capabilities.mount("ext4"))
                    .setStagingTargetPath(driver.staging("s").toString())
                    .build()));
    assertCode(
        Status.Code.INVALID_ARGUMENT,
        () ->
            node.nodePublishVolume(
                NodePublishVolumeRequest.newBuilder()
                    .setVolumeId(id)
                    .setTargetPath(target)
                    .setStagingTargetPath(driver.staging("s").toString())
                    .build()));
    assertCode(
        Status.Code.FAILED_PRECONDITION,
        () ->
            node.nodePublishVolume(
                NodePublishVolumeRequest.newBuilder()
                    .setVolumeId(id)
                    .setTargetPath(target)
                    .setVolumeCapability(Capabilities.mount("ext4"))
                    .build()));
    assertCode(
        Status.Code.NOT_FOUND,
        () ->
            driver.publish(
                UNKNOWN,
                driver.staging("s"),
                driver.target("t"),
                Capabilities.mount("ext4"),
                false));
    assertCode(
        Status.Code.FAILED_PRECONDITION,
        () ->
            driver.publish(
                id, driver.staging("s"), driver.target("t"), Capabilities.block(), false));
  }

  @Test
  @DisplayName(
      "Unpublish/unstage: missing fields INVALID_ARGUMENT, unknown volume with nothing to clean OK")
  void unpublishUnstageErrors() {
    assertCode(
        Status.Code.INVALID_ARGUMENT,
        () ->
            node.nodeUnpublishVolume(
                NodeUnpublishVolumeRequest.newBuilder().setVolumeId(UNKNOWN).build()));
    assertCode(
        Status.Code.INVALID_ARGUMENT,
        () ->
            node.nodeUnpublishVolume(
                NodeUnpublishVolumeRequest.newBuilder()
                    .setTargetPath(driver.target("x").toString())
                    .build()));
    driver.unpublish(UNKNOWN, driver.target("x"));
    assertCode(
        Status.Code.INVALID_ARGUMENT,
        () ->
            node.nodeUnstageVolume(
                NodeUnstageVolumeRequest.newBuilder().setVolumeId(UNKNOWN).build()));
    driver.unstage(UNKNOWN, driver.staging("x"));
  }

  @Test
  @DisplayName(
      "NodeGetVolumeStats and NodeExpandVolume: missing fields, unknown volume, not published")
  void statsAndExpandErrors() {
    String id = driver.create("stats", 32 << 20, Capabilities.mount("ext4"));
    assertCode(
        Status.Code.INVALID_ARGUMENT,
        () ->
            node.nodeGetVolumeStats(
                NodeGetVolumeStatsRequest.newBuilder().setVolumeId(id).build()));
    assertCode(
        Status.Code.NOT_FOUND,
        () ->
            node.nodeGetVolumeStats(
                NodeGetVolumeStatsRequest.newBuilder()
                    .setVolumeId(UNKNOWN)
                    .setVolumePath(driver.target("x").toString())
                    .build()));
    assertCode(
        Status.Code.NOT_FOUND,
        () ->
            node.nodeGetVolumeStats(
                NodeGetVolumeStatsRequest.newBuilder()
                    .setVolumeId(id)
                    .setVolumePath(driver.target("x").toString())
                    .build()));
    assertCode(
        Status.Code.INVALID_ARGUMENT,
        () -> node.nodeExpandVolume(NodeExpandVolumeRequest.newBuilder().setVolumeId(id).build()));
    assertCode(
        Status.Code.NOT_FOUND,
        () ->
            node.nodeExpandVolume(
                NodeExpandVolumeRequest.newBuilder()
                    .setVolumeId(UNKNOWN)
                    .setVolumePath(driver.target("x").toString())
                    .build()));
    assertCode(
        Status.Code.FAILED_PRECONDITION,
        () ->
            node.nodeExpandVolume(
                NodeExpandVolumeRequest.newBuilder()
                    .setVolumeId(id)
                    .setVolumePath(driver.target("x").toString())
                    .build()));
  }
}
