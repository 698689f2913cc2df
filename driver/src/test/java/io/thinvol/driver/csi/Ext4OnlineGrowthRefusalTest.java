package io.thinvol.driver.csi;

import static io.thinvol.driver.GrpcAssertions.assertCode;
import static io.thinvol.driver.GrpcAssertions.message;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import csi.v1.CapacityRange;
import csi.v1.NodeExpandVolumeRequest;
import csi.v1.VolumeCapability;
import io.grpc.Status;
import io.thinvol.driver.DriverHarness;
import io.thinvol.driver.client.Capabilities;
import io.thinvol.driver.host.Privileges;
import java.io.IOException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Where this process cannot grow a mounted ext4 (a host that withholds CAP_SYS_RESOURCE even from a
 * privileged container's root), NodeExpandVolume says what is missing and how to grow it anyway,
 * instead of asking for a privileged container the driver already runs in.
 */
class Ext4OnlineGrowthRefusalTest {

  private static final long MIB = 1L << 20;
  private DriverHarness driver;

  @BeforeEach
  void start() throws IOException {
    assumeTrue(
        !Privileges.canResizeExt4Online(),
        "this process has CAP_SYS_RESOURCE: ext4 grows online here (NodeExpansionTest)");
    driver = DriverHarness.withNodeExpansion();
  }

  @AfterEach
  void stop() throws IOException {
    if (driver != null) {
      driver.close();
    }
  }

  @Test
  @DisplayName("The refusal names the missing capability set and the ways out")
  void refusalSaysWhatIsMissing() {
    VolumeCapability ext4 = Capabilities.mount("ext4");
    String id = driver.create("ext4", 64 * MIB, ext4);
    driver.stage(id, driver.staging("ext4"), ext4);
    driver.publish(id, driver.staging("ext4"), driver.target("ext4"), ext4, false);
    NodeExpandVolumeRequest grow =
        NodeExpandVolumeRequest.newBuilder()
            .setVolumeId(id)
            .setVolumePath(driver.target("ext4").toString())
            .setCapacityRange(CapacityRange.newBuilder().setRequiredBytes(128 * MIB))
            .build();
    String message =
        message(
            assertCode(
                Status.Code.FAILED_PRECONDITION, () -> driver.csi().node().nodeExpandVolume(grow)));
    assertThat(message)
        .startsWith(
            "growing the mounted ext4 filesystem of volume "
                + id
                + " needs CAP_SYS_RESOURCE: "
                + Privileges.whyNoOnlineExt4Growth().orElseThrow())
        .contains("CapEff ")
        .contains("CapBnd ")
        .endsWith(
            "The filesystem grows offline instead when the volume is staged again: delete the pod"
                + " that uses it (the volume is unstaged, and staged for the next pod); or use"
                + " xfs, which grows mounted without it")
        .doesNotContain("which the driver lacks; run the driver container privileged");
    driver.unpublish(id, driver.target("ext4"));
    driver.unstage(id, driver.staging("ext4"));
  }
}
