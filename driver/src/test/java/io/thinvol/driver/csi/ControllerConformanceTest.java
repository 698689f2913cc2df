package io.thinvol.driver.csi;

import static io.thinvol.driver.GrpcAssertions.assertCode;
import static io.thinvol.driver.GrpcAssertions.message;
import static org.assertj.core.api.Assertions.assertThat;

import csi.v1.CapacityRange;
import csi.v1.ControllerExpandVolumeRequest;
import csi.v1.ControllerGetCapabilitiesRequest;
import csi.v1.ControllerGetVolumeRequest;
import csi.v1.ControllerGrpc;
import csi.v1.ControllerPublishVolumeRequest;
import csi.v1.ControllerServiceCapability;
import csi.v1.ControllerUnpublishVolumeRequest;
import csi.v1.CreateVolumeRequest;
import csi.v1.CreateVolumeResponse;
import csi.v1.DeleteVolumeRequest;
import csi.v1.GetCapacityRequest;
import csi.v1.GetCapacityResponse;
import csi.v1.Topology;
import csi.v1.TopologyRequirement;
import csi.v1.ValidateVolumeCapabilitiesRequest;
import csi.v1.ValidateVolumeCapabilitiesResponse;
import csi.v1.VolumeCapability;
import csi.v1.VolumeContentSource;
import io.grpc.Status;
import io.thinvol.driver.DriverHarness;
import io.thinvol.driver.client.Capabilities;
import io.thinvol.driver.client.CsiClient;
import io.thinvol.driver.config.DriverConfig;
import java.io.IOException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The spec's Controller error tables, row by row, against a running driver. */
class ControllerConformanceTest {

  private static final long MIB = 1L << 20;
  private static DriverHarness driver;
  private static ControllerGrpc.ControllerBlockingStub controller;

  @BeforeAll
  static void start() throws IOException {
    driver = new DriverHarness();
    controller = driver.csi().controller();
  }

  @AfterAll
  static void stop() throws IOException {
    driver.close();
  }

  private static CreateVolumeRequest.Builder request(String name, long required, long limit) {
    return CreateVolumeRequest.newBuilder()
        .setName(name)
        .setCapacityRange(
            CapacityRange.newBuilder().setRequiredBytes(required).setLimitBytes(limit))
        .addVolumeCapabilities(Capabilities.mount("ext4"));
  }

  private static VolumeCapability multiNode() {
    return Capabilities.mount("ext4").toBuilder()
        .setAccessMode(
            VolumeCapability.AccessMode.newBuilder()
                .setMode(VolumeCapability.AccessMode.Mode.MULTI_NODE_MULTI_WRITER))
        .build();
  }

  @Test
  @DisplayName(
      "CreateVolume: missing name, capabilities, access type or access mode is INVALID_ARGUMENT")
  void createVolumeMissingFields() {
    assertCode(
        Status.Code.INVALID_ARGUMENT, () -> controller.createVolume(request("", 0, 0).build()));
    assertCode(
        Status.Code.INVALID_ARGUMENT,
        () -> controller.createVolume(request("no-caps", 0, 0).clearVolumeCapabilities().build()));
    VolumeCapability noAccessType =
        VolumeCapability.newBuilder().setAccessMode(Capabilities.block().getAccessMode()).build();
    assertCode(
        Status.Code.INVALID_ARGUMENT,
        () ->
            controller.createVolume(
                request("no-type", 0, 0)
                    .clearVolumeCapabilities()
                    .addVolumeCapabilities(noAccessType)
                    .build()));
    VolumeCapability noMode = Capabilities.block().toBuilder().clearAccessMode().build();
    assertCode(
        Status.Code.INVALID_ARGUMENT,
        () ->
            controller.createVolume(
                request("no-mode", 0, 0)
                    .clearVolumeCapabilities()
                    .addVolumeCapabilities(noMode)
                    .build()));
  }

  @Test
  @DisplayName(
      "CreateVolume: unsupported capabilities and parameters are INVALID_ARGUMENT naming them")
  void createVolumeUnsupportedFields() {
    assertCode(
        Status.Code.INVALID_ARGUMENT,
        () ->
            controller.createVolume(
                request("both", 0, 0).addVolumeCapabilities(Capabilities.block()).build()));
    assertThat(
            message(
                assertCode(
                    Status.Code.INVALID_ARGUMENT,
                    () ->
                        controller.createVolume(
                            request("rwx", 0, 0)
                                .clearVolumeCapabilities()
                                .addVolumeCapabilities(multiNode())
                                .build()))))
        .contains("one node");
    assertCode(
        Status.Code.INVALID_ARGUMENT,
        () ->
            controller.createVolume(
                request("btrfs", 0, 0)
                    .clearVolumeCapabilities()
                    .addVolumeCapabilities(Capabilities.mount("btrfs"))
                    .build()));
    assertThat(
            message(
                assertCode(
                    Status.Code.INVALID_ARGUMENT,
                    () ->
                        controller.createVolume(
                            request("typo", 0, 0).putParameters("fsTyp", "xfs").build()))))
        .contains("fsTyp");
    assertCode(
        Status.Code.INVALID_ARGUMENT,
        () ->
            controller.createVolume(
                request("conflict", 0, 0)
                    .putParameters(VolumeSpecs.FSTYPE_PARAMETER, "xfs")
                    .build()));
  }

  @Test
  @DisplayName("CreateVolume: negative sizes and required > limit are INVALID_ARGUMENT")
  void createVolumeBadRanges() {
    assertCode(
        Status.Code.INVALID_ARGUMENT, () -> controller.createVolume(request("neg", -1, 0).build()));
    assertCode(
        Status.Code.INVALID_ARGUMENT,
        () -> controller.createVolume(request("neg-limit", 0, -5).build()));
    assertCode(
        Status.Code.INVALID_ARGUMENT,
        () -> controller.createVolume(request("inverted", 64 * MIB, 32 * MIB).build()));
  }

  @Test
  @DisplayName(
      "CreateVolume: a range the plugin cannot honour is OUT_OF_RANGE; exact sizes are exact")
  void createVolumeSizes() {
    assertCode(
        Status.Code.OUT_OF_RANGE, () -> controller.createVolume(request("tiny", 0, MIB).build()));
    assertCode(
        Status.Code.OUT_OF_RANGE,
        () -> controller.createVolume(request("odd", 20 * MIB + 1, 20 * MIB + 1).build()));
    long exact = 20 * MIB + 512;
    assertThat(volume(request("exact", exact, exact)).getVolume().getCapacityBytes())
        .isEqualTo(exact);
    assertThat(volume(request("rounded", 20 * MIB + 1, 0)).getVolume().getCapacityBytes())
        .isEqualTo(20 * MIB + 4096);
    assertThat(volume(request("default", 0, 0)).getVolume().getCapacityBytes()).isEqualTo(1L << 30);
    assertThat(volume(request("under-limit", 0, 100 * MIB)).getVolume().getCapacityBytes())
        .isEqualTo(100 * MIB);
    assertCode(
        Status.Code.RESOURCE_EXHAUSTED,
        () -> controller.createVolume(request("more-than-the-disk", 1L << 45, 0).build()));
    assertCode(
        Status.Code.OUT_OF_RANGE,
        () -> controller.createVolume(request("beyond-any-disk", 1L << 60, 0).build()));
  }

  @Test
  @DisplayName(
      "CreateVolume: same name and arguments is the same volume; incompatible is ALREADY_EXISTS")
  void createVolumeIdempotency() {
    CreateVolumeResponse first = volume(request("same", 32 * MIB, 0));
    CreateVolumeResponse second = volume(request("same", 32 * MIB, 0));
    assertThat(second.getVolume().getVolumeId()).isEqualTo(first.getVolume().getVolumeId());
    assertThat(first.getVolume().getAccessibleTopologyList())
        .containsExactly(
            Topology.newBuilder()
                .putSegments(DriverConfig.TOPOLOGY_KEY, DriverHarness.NODE)
                .build());
    assertCode(
        Status.Code.ALREADY_EXISTS,
        () -> controller.createVolume(request("same", 64 * MIB, 0).build()));
    assertCode(
        Status.Code.ALREADY_EXISTS,
        () ->
            controller.createVolume(
                request("same", 32 * MIB, 0)
                    .clearVolumeCapabilities()
                    .addVolumeCapabilities(Capabilities.block())
                    .build()));
  }

  @Test
  @DisplayName("CreateVolume: a requisite topology without this node is RESOURCE_EXHAUSTED")
  void createVolumeTopology() {
    Topology here =
        Topology.newBuilder().putSegments(DriverConfig.TOPOLOGY_KEY, DriverHarness.NODE).build();
    Topology elsewhere =
        Topology.newBuilder().putSegments(DriverConfig.TOPOLOGY_KEY, "node-b").build();
    assertCode(
        Status.Code.RESOURCE_EXHAUSTED,
        () ->
            controller.createVolume(
                request("far", 0, 0)
                    .setAccessibilityRequirements(
                        TopologyRequirement.newBuilder().addRequisite(elsewhere))
                    .build()));
    assertThat(
            volume(
                    request("near", 32 * MIB, 0)
                        .setAccessibilityRequirements(
                            TopologyRequirement.newBuilder()
                                .addRequisite(elsewhere)
                                .addRequisite(here)
                                .addPreferred(here)))
                .getVolume()
                .getAccessibleTopologyList())
        .containsExactly(here);
  }

  @Test
  @DisplayName("CreateVolume: an unknown source is NOT_FOUND, an empty one INVALID_ARGUMENT")
  void createVolumeSources() {
    VolumeContentSource unknownSnapshot =
        VolumeContentSource.newBuilder()
            .setSnapshot(
                VolumeContentSource.SnapshotSource.newBuilder()
                    .setSnapshotId("snap-00000000000000000000000000000000"))
            .build();
    assertCode(
        Status.Code.NOT_FOUND,
        () ->
            controller.createVolume(
                request("from-nothing", 0, 0).setVolumeContentSource(unknownSnapshot).build()));
    VolumeContentSource malformed =
        VolumeContentSource.newBuilder()
            .setVolume(VolumeContentSource.VolumeSource.newBuilder().setVolumeId("../../etc"))
            .build();
    assertCode(
        Status.Code.NOT_FOUND,
        () ->
            controller.createVolume(
                request("from-path", 0, 0).setVolumeContentSource(malformed).build()));
    assertCode(
        Status.Code.INVALID_ARGUMENT,
        () ->
            controller.createVolume(
                request("from-empty", 0, 0)
                    .setVolumeContentSource(VolumeContentSource.getDefaultInstance())
                    .build()));
  }

  @Test
  @DisplayName("DeleteVolume: missing id is INVALID_ARGUMENT; unknown and repeated deletes succeed")
  void deleteVolume() {
    assertCode(
        Status.Code.INVALID_ARGUMENT,
        () -> controller.deleteVolume(DeleteVolumeRequest.getDefaultInstance()));
    String id = volume(request("doomed", 32 * MIB, 0)).getVolume().getVolumeId();
    controller.deleteVolume(DeleteVolumeRequest.newBuilder().setVolumeId(id).build());
    controller.deleteVolume(DeleteVolumeRequest.newBuilder().setVolumeId(id).build());
    controller.deleteVolume(
        DeleteVolumeRequest.newBuilder()
            .setVolumeId("vol-ffffffffffffffffffffffffffffffff")
            .build());
    controller.deleteVolume(DeleteVolumeRequest.newBuilder().setVolumeId("not-a-volume").build());
    assertCode(
        Status.Code.NOT_FOUND,
        () ->
            controller.controllerGetVolume(
                ControllerGetVolumeRequest.newBuilder().setVolumeId(id).build()));
  }

  @Test
  @DisplayName("ValidateVolumeCapabilities: missing fields, unknown volume, confirmed and refused")
  void validateVolumeCapabilities() {
    assertCode(
        Status.Code.INVALID_ARGUMENT,
        () ->
            controller.validateVolumeCapabilities(
                ValidateVolumeCapabilitiesRequest.newBuilder()
                    .addVolumeCapabilities(Capabilities.block())
                    .build()));
    String id = volume(request("validated", 32 * MIB, 0)).getVolume().getVolumeId();
    assertCode(
        Status.Code.INVALID_ARGUMENT,
        () ->
            controller.validateVolumeCapabilities(
                ValidateVolumeCapabilitiesRequest.newBuilder().setVolumeId(id).build()));
    assertCode(
        Status.Code.NOT_FOUND,
        () ->
            controller.validateVolumeCapabilities(
                ValidateVolumeCapabilitiesRequest.newBuilder()
                    .setVolumeId("vol-ffffffffffffffffffffffffffffffff")
                    .addVolumeCapabilities(Capabilities.block())
                    .build()));
    ValidateVolumeCapabilitiesResponse confirmed =
        controller.validateVolumeCapabilities(
            ValidateVolumeCapabilitiesRequest.newBuilder()
                .setVolumeId(id)
                .addVolumeCapabilities(Capabilities.mount("ext4"))
                .build());
    assertThat(confirmed.getConfirmed().getVolumeCapabilitiesList())
        .containsExactly(Capabilities.mount("ext4"));
    for (VolumeCapability refused :
        new VolumeCapability[] {Capabilities.block(), multiNode(), Capabilities.mount("xfs")}) {
      ValidateVolumeCapabilitiesResponse response =
          controller.validateVolumeCapabilities(
              ValidateVolumeCapabilitiesRequest.newBuilder()
                  .setVolumeId(id)
                  .addVolumeCapabilities(refused)
                  .build());
      assertThat(response.hasConfirmed()).isFalse();
      assertThat(response.getMessage()).isNotBlank();
    }
  }

  @Test
  @DisplayName("GetCapacity: real figures here, 0 for another node or unsupported capabilities")
  void getCapacity() {
    GetCapacityResponse here = controller.getCapacity(GetCapacityRequest.getDefaultInstance());
    assertThat(here.getAvailableCapacity()).isPositive();
    assertThat(here.getMaximumVolumeSize().getValue())
        .isPositive()
        .isLessThanOrEqualTo(here.getAvailableCapacity());
    Topology elsewhere =
        Topology.newBuilder().putSegments(DriverConfig.TOPOLOGY_KEY, "node-b").build();
    assertThat(
            controller
                .getCapacity(
                    GetCapacityRequest.newBuilder().setAccessibleTopology(elsewhere).build())
                .getAvailableCapacity())
        .isZero();
    assertThat(
            controller
                .getCapacity(
                    GetCapacityRequest.newBuilder().addVolumeCapabilities(multiNode()).build())
                .getAvailableCapacity())
        .isZero();
    Topology mine =
        Topology.newBuilder().putSegments(DriverConfig.TOPOLOGY_KEY, DriverHarness.NODE).build();
    assertThat(
            controller
                .getCapacity(GetCapacityRequest.newBuilder().setAccessibleTopology(mine).build())
                .getAvailableCapacity())
        .isPositive();
  }

  @Test
  @DisplayName(
      "ControllerGetCapabilities advertises no publish; unadvertised RPCs are UNIMPLEMENTED")
  void capabilitiesAndUnimplemented() {
    assertThat(
            controller
                .controllerGetCapabilities(ControllerGetCapabilitiesRequest.getDefaultInstance())
                .getCapabilitiesList())
        .extracting(c -> c.getRpc().getType())
        .contains(
            ControllerServiceCapability.RPC.Type.CREATE_DELETE_VOLUME,
            ControllerServiceCapability.RPC.Type.GET_CAPACITY,
            ControllerServiceCapability.RPC.Type.LIST_VOLUMES,
            ControllerServiceCapability.RPC.Type.EXPAND_VOLUME,
            ControllerServiceCapability.RPC.Type.MODIFY_VOLUME)
        .doesNotContain(ControllerServiceCapability.RPC.Type.PUBLISH_UNPUBLISH_VOLUME);
    assertCode(
        Status.Code.UNIMPLEMENTED,
        () ->
            controller.controllerPublishVolume(
                ControllerPublishVolumeRequest.getDefaultInstance()));
    assertCode(
        Status.Code.UNIMPLEMENTED,
        () ->
            controller.controllerUnpublishVolume(
                ControllerUnpublishVolumeRequest.getDefaultInstance()));
  }

  @Test
  @DisplayName(
      "ControllerExpandVolume: missing range, unknown volume, shrink is a no-op, over limit")
  void expand() {
    String id = volume(request("growing", 32 * MIB, 0)).getVolume().getVolumeId();
    assertCode(
        Status.Code.INVALID_ARGUMENT,
        () ->
            controller.controllerExpandVolume(
                ControllerExpandVolumeRequest.newBuilder().setVolumeId(id).build()));
    assertCode(
        Status.Code.NOT_FOUND,
        () ->
            controller.controllerExpandVolume(
                CsiClient.expandRequest("vol-ffffffffffffffffffffffffffffffff", 64 * MIB)));
    assertThat(
            controller
                .controllerExpandVolume(CsiClient.expandRequest(id, 16 * MIB))
                .getCapacityBytes())
        .isEqualTo(32 * MIB);
    assertCode(
        Status.Code.OUT_OF_RANGE,
        () -> controller.controllerExpandVolume(CsiClient.expandRequest(id, 1L << 60)));
    assertThat(
            controller
                .controllerExpandVolume(CsiClient.expandRequest(id, 48 * MIB))
                .getCapacityBytes())
        .isEqualTo(48 * MIB);
    assertThat(
            controller
                .controllerGetVolume(
                    ControllerGetVolumeRequest.newBuilder().setVolumeId(id).build())
                .getVolume()
                .getCapacityBytes())
        .isEqualTo(48 * MIB);
  }

  private static CreateVolumeResponse volume(CreateVolumeRequest.Builder request) {
    return controller.createVolume(request.build());
  }
}
