package io.thinvol.driver.csi;

import static org.assertj.core.api.Assertions.assertThat;

import csi.v1.CreateSnapshotRequest;
import csi.v1.DeleteSnapshotRequest;
import csi.v1.NodeGetVolumeStatsRequest;
import csi.v1.VolumeCapability;
import io.thinvol.driver.DriverProcess;
import io.thinvol.driver.NamespacedNode;
import io.thinvol.driver.NamespacedNode.KubeletLayout;
import io.thinvol.driver.client.Capabilities;
import io.thinvol.driver.client.CsiClient;
import io.thinvol.driver.host.LoopDevices;
import io.thinvol.driver.host.ProcessCommandRunner;
import io.thinvol.driver.preflight.DataFiles;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The node lifecycle on both kubelet-dir layouts (issue 29, point 2). Where the kubelet dir is
 * bound onto itself under a shared parent, every staging and publish mount is listed twice in the
 * mount table; NodeUnstage must still see one mount point, and no RPC may mistake the copy for
 * another publication or leave it mounted. Also after a SIGKILL in the middle of a publish or an
 * unpublish, with the driver restarted in a fresh mount namespace.
 */
class KubeletLayoutTest {

  private static final long MIB = 1L << 20;
  private static final VolumeCapability EXT4 = Capabilities.mount("ext4");
  private static final VolumeCapability BLOCK = Capabilities.block();
  private NamespacedNode node;

  @AfterEach
  void releaseNode() throws Exception {
    if (node != null) {
      node.close();
    }
  }

  @ParameterizedTest
  @EnumSource(KubeletLayout.class)
  void lifecycle(KubeletLayout layout) throws Exception {
    node = new NamespacedNode(layout);
    try (DriverProcess driver = node.startDriver("node-a")) {
      CsiClient csi = driver.csi();
      String fs = csi.createVolume("fs", 64 * MIB, EXT4, null);
      String block = csi.createVolume("block", 32 * MIB, BLOCK, null);
      stageAndPublish(csi, fs, "fs", node.target("fs"), EXT4);
      stageAndPublish(csi, block, "block", node.blockTarget("block"), BLOCK);
      if (layout == KubeletLayout.SELF_BOUND_UNDER_SHARED_PARENT) {
        assertThat(node.mountTable().under(node.staging("fs")))
            .as("what the issue found: the staging mount is listed twice")
            .hasSize(2);
      }
      String data =
          DataFiles.writeRandom(node.seen(node.target("fs")).resolve("data.bin"), 4 * MIB);
      DataFiles.writeRandomToDevice(node.seen(node.blockTarget("block")), 4 * MIB);

      for (Path path : new Path[] {node.target("fs"), node.staging("fs")}) {
        csi.node()
            .nodeGetVolumeStats(
                NodeGetVolumeStatsRequest.newBuilder()
                    .setVolumeId(fs)
                    .setVolumePath(path.toString())
                    .build());
      }
      driver.addons().reclaimOnNode(fs, node.staging("fs"));
      String snapshot =
          csi.controller() // freezes the filesystem where it is mounted
              .createSnapshot(
                  CreateSnapshotRequest.newBuilder().setName("snap").setSourceVolumeId(fs).build())
              .getSnapshot()
              .getSnapshotId();
      csi.controller()
          .deleteSnapshot(DeleteSnapshotRequest.newBuilder().setSnapshotId(snapshot).build());
      assertThat(DataFiles.sha256(node.seen(node.target("fs")).resolve("data.bin")))
          .isEqualTo(data);

      unpublishAndUnstage(csi, fs, "fs", node.target("fs"));
      unpublishAndUnstage(csi, block, "block", node.blockTarget("block"));
      assertReleased(fs, block);
      csi.deleteVolume(fs);
      csi.deleteVolume(block);
    }
  }

  @ParameterizedTest
  @EnumSource(KubeletLayout.class)
  void killedInTheMiddleOfAPublish(KubeletLayout layout) throws Exception {
    node = new NamespacedNode(layout);
    killWhileHeld(
        "mount --bind",
        (csi, fs) -> csi.stage(fs, node.staging("fs"), EXT4),
        (csi, fs) -> csi.publish(fs, node.staging("fs"), node.target("fs"), EXT4, false));
  }

  @ParameterizedTest
  @EnumSource(KubeletLayout.class)
  void killedInTheMiddleOfAnUnpublish(KubeletLayout layout) throws Exception {
    node = new NamespacedNode(layout);
    killWhileHeld(
        "umount",
        (csi, fs) -> stageAndPublish(csi, fs, "fs", node.target("fs"), EXT4),
        (csi, fs) -> csi.unpublish(fs, node.target("fs")));
  }

  /**
   * Creates a volume and prepares it with {@code before}; SIGKILLs the driver while {@code held}
   * waits in a call of {@code heldCall}; then restarts it and finishes as the kubelet would.
   */
  private void killWhileHeld(
      String heldCall, BiConsumer<CsiClient, String> before, BiConsumer<CsiClient, String> held)
      throws Exception {
    String fs;
    CompletableFuture<Void> interrupted;
    DriverProcess driver = node.startHeldDriver("node-a", heldCall);
    try {
      CsiClient csi = driver.csi();
      fs = csi.createVolume("fs", 64 * MIB, EXT4, null);
      before.accept(csi, fs);
      interrupted = CompletableFuture.runAsync(() -> held.accept(csi, fs));
      node.awaitHeld();
    } finally {
      driver.kill();
    }
    assertThat(interrupted).failsWithin(Duration.ofSeconds(30));
    restartAndFinish(fs);
  }

  /** What the kubelet does after the crash: retries the publish, then tears everything down. */
  private void restartAndFinish(String fs) throws Exception {
    try (DriverProcess second = node.startDriver("node-a")) {
      CsiClient csi = second.csi();
      csi.stage(fs, node.staging("fs"), EXT4);
      csi.publish(fs, node.staging("fs"), node.target("fs"), EXT4, false);
      String data = DataFiles.writeRandom(node.seen(node.target("fs")).resolve("data.bin"), MIB);
      assertThat(DataFiles.sha256(node.seen(node.staging("fs")).resolve("data.bin")))
          .isEqualTo(data);
      unpublishAndUnstage(csi, fs, "fs", node.target("fs"));
      assertReleased(fs);
      csi.deleteVolume(fs);
    }
  }

  private void stageAndPublish(
      CsiClient csi, String id, String slot, Path target, VolumeCapability capability) {
    csi.stage(id, node.staging(slot), capability);
    csi.publish(id, node.staging(slot), target, capability, false);
  }

  private void unpublishAndUnstage(CsiClient csi, String id, String slot, Path target) {
    csi.unpublish(id, target);
    csi.unstage(id, node.staging(slot));
  }

  private void assertReleased(String... ids) {
    assertThat(node.mountsBelowKubelet()).as("mounts left below the kubelet dir").isEmpty();
    LoopDevices loops = new LoopDevices(new ProcessCommandRunner());
    for (String id : ids) {
      Path image = node.hostDataDir().resolve("volumes").resolve(id).resolve("disk.img");
      assertThat(loops.find(image)).as("loop device of %s", id).isEmpty();
    }
  }
}
