package io.thinvol.driver.csi;

import static io.thinvol.driver.GrpcAssertions.assertCode;
import static io.thinvol.driver.GrpcAssertions.message;
import static org.assertj.core.api.Assertions.assertThat;

import csi.v1.CreateSnapshotRequest;
import csi.v1.DeleteSnapshotRequest;
import csi.v1.ListVolumesRequest;
import csi.v1.NodeGetVolumeStatsRequest;
import csi.v1.NodeGetVolumeStatsResponse;
import csi.v1.VolumeCapability;
import csi.v1.VolumeUsage;
import io.grpc.Status;
import io.thinvol.driver.ContainerNode;
import io.thinvol.driver.DriverProcess;
import io.thinvol.driver.client.Capabilities;
import io.thinvol.driver.client.CsiClient;
import io.thinvol.driver.host.ProcessCommandRunner;
import io.thinvol.driver.preflight.DataFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * A driver restarted as a container restarts: killed, its mount namespace gone, and started again
 * in a new one with the data dir bind-mounted at the same path. The kernel then reports the loop
 * devices' backing files by paths of the vanished namespace; the driver must still know every loop
 * device it attached (issue 16, point 0).
 */
class ContainerRestartTest {

  private static final long MIB = 1L << 20;
  private static final VolumeCapability EXT4 = Capabilities.mount("ext4");
  private static final VolumeCapability BLOCK = Capabilities.block();
  private final ProcessCommandRunner runner = new ProcessCommandRunner();
  private ContainerNode node;

  @BeforeEach
  void createNode() throws Exception {
    node = new ContainerNode();
  }

  @AfterEach
  void releaseNode() throws Exception {
    node.close();
  }

  @Test
  @DisplayName(
      "After a container restart every RPC that looks at attachment sees the volumes staged before"
          + " it; reclaim, snapshot and delete never attach them a second time")
  void aRestartedContainerKnowsTheLoopDevicesItAttached() throws Exception {
    String fsId;
    String blockId;
    String fsData;
    String blockData;
    DriverProcess first = node.startDriver("node-a");
    try {
      CsiClient csi = first.csi();
      fsId = csi.createVolume("fs", 64 * MIB, EXT4, null);
      blockId = csi.createVolume("block", 32 * MIB, BLOCK, null);
      stageAndPublish(csi, fsId, node.target("fs"), EXT4);
      stageAndPublish(csi, blockId, node.blockTarget("block"), BLOCK);
      fsData = DataFiles.writeRandom(node.target("fs").resolve("data.bin"), 8 * MIB);
      blockData = DataFiles.writeRandomToDevice(node.blockTarget("block"), 8 * MIB);
      assertThat(backingName(fsId)).startsWith(node.containerDataDir().toString());
    } finally {
      first.kill();
    }
    // what the issue reproduced: the kernel now names the image by a path of the dead namespace
    assertThat(backingName(fsId)).doesNotStartWith(node.containerDataDir().toString());

    try (DriverProcess second = node.startDriver("node-a")) {
      CsiClient csi = second.csi();
      stageAndPublish(csi, fsId, node.target("fs"), EXT4);
      stageAndPublish(csi, blockId, node.blockTarget("block"), BLOCK);
      assertSingleLoopDevice(fsId, blockId);
      assertThat(DataFiles.sha256(node.target("fs").resolve("data.bin"))).isEqualTo(fsData);
      assertThat(DataFiles.sha256Prefix(node.blockTarget("block"), 8 * MIB)).isEqualTo(blockData);

      assertThat(
              csi.controller()
                  .listVolumes(ListVolumesRequest.getDefaultInstance())
                  .getEntriesList())
          .allSatisfy(
              e -> assertThat(e.getStatus().getPublishedNodeIdsList()).containsExactly("node-a"));
      assertThat(stats(csi, fsId, node.target("fs")).getUsageList())
          .anySatisfy(u -> assertThat(u.getUnit()).isEqualTo(VolumeUsage.Unit.BYTES));
      assertThat(stats(csi, blockId, node.blockTarget("block")).getUsage(0).getTotal())
          .isEqualTo(32 * MIB);

      assertThat(
              message(
                  assertCode(
                      Status.Code.FAILED_PRECONDITION, () -> second.addons().reclaimOffline(fsId))))
          .contains("staged on this node")
          .contains("NodeReclaimSpace");
      assertCode(Status.Code.UNIMPLEMENTED, () -> second.addons().reclaimOffline(blockId));
      assertSingleLoopDevice(fsId, blockId);

      String snapshotId =
          csi.controller()
              .createSnapshot(
                  CreateSnapshotRequest.newBuilder()
                      .setName("snap")
                      .setSourceVolumeId(fsId)
                      .build())
              .getSnapshot()
              .getSnapshotId();
      Path snapshotImage =
          node.hostDataDir().resolve("snapshots").resolve(snapshotId).resolve("disk.img");
      assertThat(
              runner
                  .runAllowingFailure(
                      Duration.ofSeconds(60), List.of("e2fsck", "-fn", snapshotImage.toString()))
                  .exitCode())
          .as("the snapshot is a clean filesystem")
          .isZero();
      csi.controller()
          .deleteSnapshot(DeleteSnapshotRequest.newBuilder().setSnapshotId(snapshotId).build());
      assertSingleLoopDevice(fsId, blockId);

      for (String id : List.of(fsId, blockId)) {
        assertThat(message(assertCode(Status.Code.FAILED_PRECONDITION, () -> csi.deleteVolume(id))))
            .contains("staged");
        assertThat(node.image(id)).exists();
      }

      csi.unpublish(fsId, node.target("fs"));
      csi.unstage(fsId, node.staging("fs"));
      csi.unpublish(blockId, node.blockTarget("block"));
      csi.unstage(blockId, node.staging("block"));
      assertThat(loopDevices(fsId)).as("detached by NodeUnstage").isEmpty();
      assertThat(loopDevices(blockId)).as("detached by NodeUnstage").isEmpty();
      csi.deleteVolume(fsId);
      csi.deleteVolume(blockId);
      assertThat(node.image(fsId)).doesNotExist();
    }
  }

  private void stageAndPublish(CsiClient csi, String id, Path target, VolumeCapability capability) {
    String slot = target.getParent().getFileName().toString();
    csi.stage(id, node.staging(slot), capability);
    csi.publish(id, node.staging(slot), target, capability, false);
  }

  private static NodeGetVolumeStatsResponse stats(CsiClient csi, String id, Path path) {
    return csi.node()
        .nodeGetVolumeStats(
            NodeGetVolumeStatsRequest.newBuilder()
                .setVolumeId(id)
                .setVolumePath(path.toString())
                .build());
  }

  private void assertSingleLoopDevice(String... ids) {
    for (String id : ids) {
      assertThat(loopDevices(id)).as("loop devices of %s", id).hasSize(1);
    }
  }

  /** The loop devices of a volume as losetup finds them (by the image's device and inode). */
  private List<String> loopDevices(String id) {
    String out =
        runner
            .run(
                Duration.ofSeconds(30),
                List.of(
                    "losetup",
                    "--list",
                    "--noheadings",
                    "--output",
                    "NAME",
                    "--associated",
                    node.image(id).toString()))
            .stdout();
    return Arrays.stream(out.split("\n")).map(String::strip).filter(s -> !s.isEmpty()).toList();
  }

  private String backingName(String id) throws Exception {
    List<String> devices = loopDevices(id);
    assertThat(devices).hasSize(1);
    String name = Path.of(devices.get(0)).getFileName().toString();
    return Files.readString(Path.of("/sys/block", name, "loop/backing_file")).strip();
  }
}
