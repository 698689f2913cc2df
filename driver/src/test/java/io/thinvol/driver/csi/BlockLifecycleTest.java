package io.thinvol.driver.csi;

import static io.thinvol.driver.GrpcAssertions.assertCode;
import static io.thinvol.driver.GrpcAssertions.message;
import static io.thinvol.driver.client.ContentSources.snapshotSource;
import static io.thinvol.driver.client.ContentSources.volumeSource;
import static io.thinvol.driver.csi.MountLifecycleTest.usage;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import csi.v1.CapacityRange;
import csi.v1.CreateSnapshotRequest;
import csi.v1.CreateVolumeRequest;
import csi.v1.DeleteSnapshotRequest;
import csi.v1.DeleteVolumeRequest;
import csi.v1.NodeExpandVolumeRequest;
import csi.v1.NodeGetVolumeStatsRequest;
import csi.v1.VolumeCapability;
import csi.v1.VolumeContentSource;
import csi.v1.VolumeUsage;
import io.grpc.Status;
import io.thinvol.driver.DriverHarness;
import io.thinvol.driver.client.Capabilities;
import io.thinvol.driver.client.CsiClient;
import io.thinvol.driver.preflight.DataFiles;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Raw block volumes: published as a device file, data checked across copies and growth. */
class BlockLifecycleTest {

  private static final long MIB = 1L << 20;
  private static final VolumeCapability BLOCK = Capabilities.block();
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
  void lifecycle() throws IOException {
    String id = driver.create("block", 64 * MIB, BLOCK);
    publish(id, "origin", false);
    Path device = driver.blockTarget("origin");
    DataFiles.writeRandomToDevice(device, 8 * MIB);
    String whole = DataFiles.sha256Prefix(device, 64 * MIB);
    assertThat(deviceBytes(id, device)).isEqualTo(64 * MIB);

    // The data dir (under /tmp) has no reflinks: a copy of a block volume a pod may be writing
    // would be torn, so it is refused until the volume is detached.
    assertThat(
            message(
                assertCode(
                    Status.Code.FAILED_PRECONDITION,
                    () -> driver.csi().controller().createSnapshot(snapshotRequest(id)))))
        .contains("attached read-write", "no reflinks", "unstage");
    assertCode(
        Status.Code.FAILED_PRECONDITION,
        () -> createFrom("block-clone", 64 * MIB, volumeSource(id)));
    driver.unpublish(id, device);
    driver.unstage(id, driver.staging("origin"));

    String snapshot =
        driver.csi().controller().createSnapshot(snapshotRequest(id)).getSnapshot().getSnapshotId();
    String restored = createFrom("block-restored", 128 * MIB, snapshotSource(snapshot));
    String clone = createFrom("block-clone", 64 * MIB, volumeSource(id));
    publish(id, "origin", false);
    publish(restored, "restored", false);
    publish(clone, "clone", false);
    assertThat(DataFiles.sha256Prefix(driver.blockTarget("restored"), 64 * MIB)).isEqualTo(whole);
    assertThat(deviceBytes(restored, driver.blockTarget("restored"))).isEqualTo(128 * MIB);
    assertThat(DataFiles.sha256Prefix(driver.blockTarget("clone"), 64 * MIB)).isEqualTo(whole);

    driver
        .csi()
        .controller()
        .controllerExpandVolume(
            CsiClient.expandRequest(id, 96 * MIB).toBuilder().setVolumeCapability(BLOCK).build());
    driver
        .csi()
        .node()
        .nodeExpandVolume(
            NodeExpandVolumeRequest.newBuilder()
                .setVolumeId(id)
                .setVolumePath(device.toString())
                .setVolumeCapability(BLOCK)
                .build());
    assertThat(deviceBytes(id, device)).isEqualTo(96 * MIB);
    assertThat(DataFiles.sha256Prefix(device, 64 * MIB)).isEqualTo(whole);

    Path readOnly = driver.blockTarget("read-only");
    driver.publish(clone, driver.staging("clone"), readOnly, BLOCK, true);
    // The kernel lets a read-only device be opened for writing but refuses every write.
    assertThatThrownBy(
            () -> {
              try (FileChannel channel = FileChannel.open(readOnly, StandardOpenOption.WRITE)) {
                channel.write(java.nio.ByteBuffer.allocate(4096));
              }
            })
        .isInstanceOf(IOException.class)
        .hasMessageContaining("not permitted");
    assertThat(DataFiles.sha256Prefix(readOnly, 64 * MIB)).isEqualTo(whole);
    driver.unpublish(clone, readOnly);
    assertThat(readOnly).doesNotExist();

    for (String[] volume :
        new String[][] {{id, "origin"}, {restored, "restored"}, {clone, "clone"}}) {
      driver.unpublish(volume[0], driver.blockTarget(volume[1]));
      driver.unstage(volume[0], driver.staging(volume[1]));
      driver
          .csi()
          .controller()
          .deleteVolume(DeleteVolumeRequest.newBuilder().setVolumeId(volume[0]).build());
    }
    driver
        .csi()
        .controller()
        .deleteSnapshot(DeleteSnapshotRequest.newBuilder().setSnapshotId(snapshot).build());
  }

  private void publish(String id, String slot, boolean readOnly) {
    driver.stage(id, driver.staging(slot), BLOCK);
    driver.publish(id, driver.staging(slot), driver.blockTarget(slot), BLOCK, readOnly);
  }

  private static CreateSnapshotRequest snapshotRequest(String id) {
    return CreateSnapshotRequest.newBuilder().setName("block-snap").setSourceVolumeId(id).build();
  }

  private long deviceBytes(String id, Path device) {
    return usage(
            driver
                .csi()
                .node()
                .nodeGetVolumeStats(
                    NodeGetVolumeStatsRequest.newBuilder()
                        .setVolumeId(id)
                        .setVolumePath(device.toString())
                        .build()),
            VolumeUsage.Unit.BYTES)
        .getTotal();
  }

  private String createFrom(String name, long bytes, VolumeContentSource source) {
    return driver
        .csi()
        .controller()
        .createVolume(
            CreateVolumeRequest.newBuilder()
                .setName(name)
                .setCapacityRange(CapacityRange.newBuilder().setRequiredBytes(bytes))
                .addVolumeCapabilities(BLOCK)
                .setVolumeContentSource(source)
                .build())
        .getVolume()
        .getVolumeId();
  }
}
