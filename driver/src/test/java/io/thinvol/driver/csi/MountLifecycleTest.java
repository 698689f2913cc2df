package io.thinvol.driver.csi;

import static io.thinvol.driver.GrpcAssertions.assertCode;
import static io.thinvol.driver.GrpcAssertions.message;
import static io.thinvol.driver.client.ContentSources.snapshotSource;
import static io.thinvol.driver.client.ContentSources.volumeSource;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import csi.v1.CapacityRange;
import csi.v1.CreateSnapshotRequest;
import csi.v1.CreateVolumeRequest;
import csi.v1.DeleteSnapshotRequest;
import csi.v1.DeleteVolumeRequest;
import csi.v1.NodeExpandVolumeRequest;
import csi.v1.NodeGetVolumeStatsRequest;
import csi.v1.NodeGetVolumeStatsResponse;
import csi.v1.VolumeCapability;
import csi.v1.VolumeContentSource;
import csi.v1.VolumeUsage;
import io.grpc.Status;
import io.thinvol.driver.DriverHarness;
import io.thinvol.driver.client.Capabilities;
import io.thinvol.driver.client.CsiClient;
import io.thinvol.driver.host.FileStats;
import io.thinvol.driver.host.MountTable;
import io.thinvol.driver.host.Privileges;
import io.thinvol.driver.host.ProcessCommandRunner;
import io.thinvol.driver.preflight.DataFiles;
import java.io.IOException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Filesystem volumes from creation to deletion, with data checked at every copy and growth. */
class MountLifecycleTest {

  private static final long MIB = 1L << 20;
  private DriverHarness driver;

  @BeforeEach
  void start() throws IOException {
    driver = new DriverHarness();
  }

  @AfterEach
  void stop() throws IOException {
    driver.close();
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"ext4", "xfs"})
  void lifecycle(String fs) throws IOException {
    VolumeCapability capability = Capabilities.mount(fs, "noatime");
    String id = driver.create("origin-" + fs, 512 * MIB, capability);
    driver.stage(id, driver.staging("origin"), capability);
    driver.publish(id, driver.staging("origin"), driver.target("origin"), capability, false);
    assertThat(MountTable.read().at(driver.staging("origin")).orElseThrow().fsType()).isEqualTo(fs);
    assertThat(MountTable.read().at(driver.staging("origin")).orElseThrow().mountOptions())
        .contains("noatime");
    Path image = driver.dataDir().resolve("volumes").resolve(id).resolve("disk.img");
    assertThat(new FileStats(new ProcessCommandRunner()).allocatedBytes(image))
        .as("a fresh %s volume of 512 MiB stays thin after mkfs", fs)
        .isLessThan(fs.equals("ext4") ? 8 * MIB : 72 * MIB); // xfs writes its 64 MiB log

    String checksum = DataFiles.writeRandom(driver.target("origin").resolve("data.bin"), 32 * MIB);
    NodeGetVolumeStatsResponse stats = stats(id, driver.target("origin"));
    assertThat(usage(stats, VolumeUsage.Unit.BYTES).getUsed()).isGreaterThanOrEqualTo(32 * MIB);
    assertThat(usage(stats, VolumeUsage.Unit.BYTES).getTotal()).isBetween(400 * MIB, 512 * MIB);
    assertThat(usage(stats, VolumeUsage.Unit.INODES).getUsed()).isPositive();
    assertThat(stats.getVolumeCondition().getAbnormal()).isFalse();

    String snapshot =
        driver
            .csi()
            .controller()
            .createSnapshot(
                CreateSnapshotRequest.newBuilder()
                    .setName("snap-" + fs)
                    .setSourceVolumeId(id)
                    .build())
            .getSnapshot()
            .getSnapshotId();
    // Cloned while mounted and published: the driver freezes the filesystem for the copy.
    String clone = createFrom("clone-" + fs, 512 * MIB, capability, volumeSource(id));
    String restored = createFrom("restored-" + fs, 768 * MIB, capability, snapshotSource(snapshot));

    for (String copy : new String[] {clone, restored}) {
      driver.stage(copy, driver.staging(copy), capability);
      driver.publish(copy, driver.staging(copy), driver.target(copy), capability, false);
      assertThat(DataFiles.sha256(driver.target(copy).resolve("data.bin"))).isEqualTo(checksum);
    }
    assertThat(usage(stats(restored, driver.target(restored)), VolumeUsage.Unit.BYTES).getTotal())
        .as("restoring into a larger volume grows the filesystem")
        .isGreaterThan(600 * MIB);

    expand(id, fs, capability);
    assertThat(usage(stats(id, driver.target("origin")), VolumeUsage.Unit.BYTES).getTotal())
        .isGreaterThan(900 * MIB);
    assertThat(DataFiles.sha256(driver.target("origin").resolve("data.bin"))).isEqualTo(checksum);

    Path readOnly = driver.target("read-only");
    driver.publish(clone, driver.staging(clone), readOnly, capability, true);
    assertThatThrownBy(() -> Files.writeString(readOnly.resolve("new.txt"), "x"))
        .isInstanceOf(FileSystemException.class)
        .hasMessageContaining("Read-only");
    assertThat(DataFiles.sha256(readOnly.resolve("data.bin"))).isEqualTo(checksum);
    driver.unpublish(clone, readOnly);

    for (String copy : new String[] {clone, restored}) {
      driver.unpublish(copy, driver.target(copy));
      driver.unstage(copy, driver.staging(copy));
      delete(copy);
    }
    driver.unpublish(id, driver.target("origin"));
    driver.unstage(id, driver.staging("origin"));
    driver
        .csi()
        .controller()
        .deleteSnapshot(DeleteSnapshotRequest.newBuilder().setSnapshotId(snapshot).build());
    delete(id);
    try (var left = Files.list(driver.dataDir().resolve("volumes"))) {
      assertThat(left).isEmpty();
    }
  }

  /** Online where the kernel lets this process grow the filesystem; otherwise at restage. */
  private void expand(String id, String fs, VolumeCapability capability) {
    driver.csi().controller().controllerExpandVolume(CsiClient.expandRequest(id, 1024 * MIB));
    NodeExpandVolumeRequest nodeExpand =
        NodeExpandVolumeRequest.newBuilder()
            .setVolumeId(id)
            .setVolumePath(driver.target("origin").toString())
            .setCapacityRange(CapacityRange.newBuilder().setRequiredBytes(1024 * MIB))
            .build();
    if (fs.equals("xfs") || Privileges.canResizeExt4Online()) {
      assertThat(driver.csi().node().nodeExpandVolume(nodeExpand).getCapacityBytes())
          .isEqualTo(1024 * MIB);
      return;
    }
    assertThat(
            message(
                assertCode(
                    Status.Code.FAILED_PRECONDITION,
                    () -> driver.csi().node().nodeExpandVolume(nodeExpand))))
        .contains("CAP_SYS_RESOURCE");
    driver.unpublish(id, driver.target("origin"));
    driver.unstage(id, driver.staging("origin"));
    driver.stage(id, driver.staging("origin"), capability);
    driver.publish(id, driver.staging("origin"), driver.target("origin"), capability, false);
    assertThat(driver.csi().node().nodeExpandVolume(nodeExpand).getCapacityBytes())
        .as("nothing left to grow: the call succeeds")
        .isEqualTo(1024 * MIB);
  }

  private String createFrom(
      String name, long bytes, VolumeCapability capability, VolumeContentSource source) {
    var volume =
        driver
            .csi()
            .controller()
            .createVolume(
                CreateVolumeRequest.newBuilder()
                    .setName(name)
                    .setCapacityRange(CapacityRange.newBuilder().setRequiredBytes(bytes))
                    .addVolumeCapabilities(capability)
                    .setVolumeContentSource(source)
                    .build())
            .getVolume();
    assertThat(volume.getContentSource()).isEqualTo(source);
    assertThat(volume.getCapacityBytes()).isEqualTo(bytes);
    return volume.getVolumeId();
  }

  private NodeGetVolumeStatsResponse stats(String id, Path path) {
    return driver
        .csi()
        .node()
        .nodeGetVolumeStats(
            NodeGetVolumeStatsRequest.newBuilder()
                .setVolumeId(id)
                .setVolumePath(path.toString())
                .build());
  }

  static VolumeUsage usage(NodeGetVolumeStatsResponse stats, VolumeUsage.Unit unit) {
    return stats.getUsageList().stream().filter(u -> u.getUnit() == unit).findFirst().orElseThrow();
  }

  private void delete(String id) {
    driver
        .csi()
        .controller()
        .deleteVolume(DeleteVolumeRequest.newBuilder().setVolumeId(id).build());
  }
}
