package io.thinvol.driver.csi;

import static io.thinvol.driver.GrpcAssertions.assertCode;
import static io.thinvol.driver.csi.MountLifecycleTest.usage;
import static org.assertj.core.api.Assertions.assertThat;

import csi.v1.CapacityRange;
import csi.v1.ControllerGetCapabilitiesRequest;
import csi.v1.ControllerGetVolumeRequest;
import csi.v1.ControllerServiceCapability;
import csi.v1.NodeExpandVolumeRequest;
import csi.v1.NodeGetVolumeStatsRequest;
import csi.v1.VolumeCapability;
import csi.v1.VolumeUsage;
import io.grpc.Status;
import io.thinvol.driver.DriverHarness;
import io.thinvol.driver.client.Capabilities;
import io.thinvol.driver.client.CsiClient;
import io.thinvol.driver.host.Privileges;
import io.thinvol.driver.preflight.DataFiles;
import java.io.IOException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * --expansion=node: a central resizer only updates the PV, and the node that holds the image grows
 * it in NodeExpandVolume.
 */
class NodeExpansionTest {

  private static final long MIB = 1L << 20;
  private static final long GIB = 1L << 30;
  private DriverHarness driver;

  @BeforeEach
  void start() throws IOException {
    driver = DriverHarness.withNodeExpansion();
  }

  @AfterEach
  void stop() throws IOException {
    driver.close();
  }

  private NodeExpandVolumeRequest grow(String id, String slot, long bytes) {
    return NodeExpandVolumeRequest.newBuilder()
        .setVolumeId(id)
        .setVolumePath(driver.target(slot).toString())
        .setCapacityRange(CapacityRange.newBuilder().setRequiredBytes(bytes))
        .build();
  }

  @Test
  @DisplayName("No controller expansion is offered; NodeExpandVolume grows image, device and xfs")
  void nodeGrowsEverything() throws IOException {
    assertThat(
            driver
                .csi()
                .controller()
                .controllerGetCapabilities(ControllerGetCapabilitiesRequest.getDefaultInstance())
                .getCapabilitiesList())
        .extracting(c -> c.getRpc().getType())
        .doesNotContain(ControllerServiceCapability.RPC.Type.EXPAND_VOLUME);
    VolumeCapability xfs = Capabilities.mount("xfs");
    String id = driver.create("grow", 512 * MIB, xfs);
    assertCode(
        Status.Code.UNIMPLEMENTED,
        () -> driver.csi().controller().controllerExpandVolume(CsiClient.expandRequest(id, GIB)));
    driver.stage(id, driver.staging("grow"), xfs);
    driver.publish(id, driver.staging("grow"), driver.target("grow"), xfs, false);
    String data = DataFiles.writeRandom(driver.target("grow").resolve("data.bin"), 16 * MIB);

    assertThat(driver.csi().node().nodeExpandVolume(grow(id, "grow", GIB)).getCapacityBytes())
        .isEqualTo(GIB);
    assertThat(driver.csi().node().nodeExpandVolume(grow(id, "grow", GIB)).getCapacityBytes())
        .as("repeated: nothing left to do")
        .isEqualTo(GIB);
    assertThat(
            driver
                .csi()
                .controller()
                .controllerGetVolume(
                    ControllerGetVolumeRequest.newBuilder().setVolumeId(id).build())
                .getVolume()
                .getCapacityBytes())
        .isEqualTo(GIB);
    long total =
        usage(
                driver
                    .csi()
                    .node()
                    .nodeGetVolumeStats(
                        NodeGetVolumeStatsRequest.newBuilder()
                            .setVolumeId(id)
                            .setVolumePath(driver.target("grow").toString())
                            .build()),
                VolumeUsage.Unit.BYTES)
            .getTotal();
    assertThat(total).isGreaterThan(900 * MIB);
    assertThat(DataFiles.sha256(driver.target("grow").resolve("data.bin"))).isEqualTo(data);
    driver.unpublish(id, driver.target("grow"));
    driver.unstage(id, driver.staging("grow"));
  }

  @Test
  @DisplayName("ext4 without CAP_SYS_RESOURCE: the image grows now, the filesystem at restage")
  void ext4GrowsAtRestageWithoutPrivilege() {
    VolumeCapability ext4 = Capabilities.mount("ext4");
    String id = driver.create("ext4", 64 * MIB, ext4);
    driver.stage(id, driver.staging("ext4"), ext4);
    driver.publish(id, driver.staging("ext4"), driver.target("ext4"), ext4, false);
    if (Privileges.canResizeExt4Online()) {
      assertThat(
              driver.csi().node().nodeExpandVolume(grow(id, "ext4", 128 * MIB)).getCapacityBytes())
          .isEqualTo(128 * MIB);
    } else {
      assertCode(
          Status.Code.FAILED_PRECONDITION,
          () -> driver.csi().node().nodeExpandVolume(grow(id, "ext4", 128 * MIB)));
      driver.unpublish(id, driver.target("ext4"));
      driver.unstage(id, driver.staging("ext4"));
      driver.stage(id, driver.staging("ext4"), ext4);
      driver.publish(id, driver.staging("ext4"), driver.target("ext4"), ext4, false);
      assertThat(
              driver.csi().node().nodeExpandVolume(grow(id, "ext4", 128 * MIB)).getCapacityBytes())
          .isEqualTo(128 * MIB);
    }
    driver.unpublish(id, driver.target("ext4"));
    driver.unstage(id, driver.staging("ext4"));
  }
}
