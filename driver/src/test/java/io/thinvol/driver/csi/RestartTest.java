package io.thinvol.driver.csi;

import static org.assertj.core.api.Assertions.assertThat;

import csi.v1.ListVolumesRequest;
import csi.v1.VolumeCapability;
import io.thinvol.driver.DriverProcess;
import io.thinvol.driver.client.Capabilities;
import io.thinvol.driver.client.CsiClient;
import io.thinvol.driver.host.HostCleanup;
import io.thinvol.driver.host.LoopDevices;
import io.thinvol.driver.host.ProcessCommandRunner;
import io.thinvol.driver.preflight.DataFiles;
import io.thinvol.driver.store.Catalog;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** State survives a SIGKILL of the driver and a reboot of the node (simulated). */
class RestartTest {

  private static final long MIB = 1L << 20;
  private static final VolumeCapability EXT4 = Capabilities.mount("ext4");
  private static final VolumeCapability BLOCK = Capabilities.block();
  private Path root;

  @BeforeEach
  void createRoot() throws Exception {
    root = Files.createTempDirectory("thinvol-restart-");
  }

  @AfterEach
  void cleanUp() throws Exception {
    List<String> leaked = HostCleanup.release(root);
    Catalog.removeTree(root);
    assertThat(leaked).as("left behind").isEmpty();
  }

  @Test
  void survivesKillAndReboot() throws Exception {
    String fsId;
    String blockId;
    String fsData;
    String blockData;
    DriverProcess first = DriverProcess.start(root, "node-a");
    try {
      fsId = create(first.csi(), "fs", EXT4);
      blockId = create(first.csi(), "block", BLOCK);
      stageAndPublish(first.csi(), fsId, "fs", EXT4);
      stageAndPublish(first.csi(), blockId, "block", BLOCK);
      fsData = DataFiles.writeRandom(target("fs").resolve("data.bin"), 8 * MIB);
      blockData = DataFiles.writeRandomToDevice(target("block"), 8 * MIB);
    } finally {
      first.kill();
    }

    try (DriverProcess second = DriverProcess.start(root, "node-a")) {
      CsiClient csi = second.csi();
      assertThat(
              csi.controller()
                  .listVolumes(ListVolumesRequest.getDefaultInstance())
                  .getEntriesList())
          .extracting(e -> e.getVolume().getVolumeId())
          .containsExactlyInAnyOrder(fsId, blockId);
      assertThat(
              csi.controller()
                  .listVolumes(ListVolumesRequest.getDefaultInstance())
                  .getEntriesList())
          .allSatisfy(
              e -> assertThat(e.getStatus().getPublishedNodeIdsList()).containsExactly("node-a"));
      assertThat(DataFiles.sha256(target("fs").resolve("data.bin"))).isEqualTo(fsData);
      unpublishAndUnstage(csi, fsId, "fs");
      csi.deleteVolume(fsId);

      // A reboot: every mount and loop device is gone, the data dir is not.
      assertThat(HostCleanup.release(root.resolve("pods"))).isNotEmpty();
      assertThat(HostCleanup.release(root.resolve("staging"))).isEmpty();
      assertThat(HostCleanup.release(root.resolve("data"))).isNotEmpty();
      assertThat(new LoopDevices(new ProcessCommandRunner()).find(image(blockId))).isEmpty();

      stageAndPublish(csi, blockId, "block", BLOCK);
      assertThat(DataFiles.sha256Prefix(target("block"), 8 * MIB)).isEqualTo(blockData);
      unpublishAndUnstage(csi, blockId, "block");
      csi.deleteVolume(blockId);
      assertThat(
              csi.controller()
                  .listVolumes(ListVolumesRequest.getDefaultInstance())
                  .getEntriesList())
          .isEmpty();
    }
  }

  @Test
  void rebootedFilesystemVolumeIsStagedAgain() throws Exception {
    try (DriverProcess driver = DriverProcess.start(root, "node-a")) {
      CsiClient csi = driver.csi();
      String id = create(csi, "fs", EXT4);
      stageAndPublish(csi, id, "fs", EXT4);
      String data = DataFiles.writeRandom(target("fs").resolve("data.bin"), 4 * MIB);
      assertThat(HostCleanup.release(root)).hasSize(3); // publish bind, staging mount, loop device
      stageAndPublish(csi, id, "fs", EXT4);
      assertThat(DataFiles.sha256(target("fs").resolve("data.bin"))).isEqualTo(data);
      unpublishAndUnstage(csi, id, "fs");
      csi.deleteVolume(id);
    }
  }

  private Path image(String id) {
    return root.resolve("data/volumes").resolve(id).resolve("disk.img");
  }

  private Path staging(String slot) {
    return root.resolve("staging").resolve(slot);
  }

  private Path target(String slot) {
    return root.resolve("pods").resolve(slot).resolve(slot.equals("block") ? "device" : "mount");
  }

  private static String create(CsiClient csi, String name, VolumeCapability capability) {
    return csi.createVolume(name, 32 * MIB, capability, null);
  }

  private void stageAndPublish(CsiClient csi, String id, String slot, VolumeCapability capability) {
    csi.stage(id, staging(slot), capability);
    csi.publish(id, staging(slot), target(slot), capability, false);
  }

  private void unpublishAndUnstage(CsiClient csi, String id, String slot) {
    csi.unpublish(id, target(slot));
    csi.unstage(id, staging(slot));
  }
}
