package io.thinvol.driver.preflight;

import csi.v1.CreateSnapshotRequest;
import csi.v1.DeleteSnapshotRequest;
import csi.v1.GetPluginInfoRequest;
import csi.v1.NodeGetVolumeStatsResponse;
import csi.v1.ProbeRequest;
import csi.v1.VolumeCapability;
import csi.v1.VolumeUsage;
import io.thinvol.driver.client.AddonsClient;
import io.thinvol.driver.client.Capabilities;
import io.thinvol.driver.client.ContentSources;
import io.thinvol.driver.client.CsiClient;
import io.thinvol.driver.host.FileStats;
import io.thinvol.driver.host.Privileges;
import io.thinvol.driver.host.ProcessCommandRunner;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The lifecycle the preflight drives through the driver's own gRPC API: a filesystem volume from
 * creation to deletion (data, snapshot, restore, online expansion, stats) and a block volume round
 * trip. Whatever it creates it also removes, in reverse order, even after a failure.
 */
final class LifecycleScenario {

  static final long GIB = 1L << 30;
  private static final long DATA_BYTES = 64L << 20;

  private final CsiClient csi;
  private final AddonsClient addons;
  private final Path dataDir;
  private final StepRunner steps;
  private final PreflightVolumes volumes;

  private String volumeId;
  private String snapshotId;
  private String checksum;

  LifecycleScenario(CsiClient csi, AddonsClient addons, Path dataDir, Path work, StepRunner steps) {
    this.csi = csi;
    this.addons = addons;
    this.dataDir = dataDir;
    this.steps = steps;
    this.volumes = new PreflightVolumes(csi, work);
  }

  void run() {
    VolumeCapability ext4 = Capabilities.mount("ext4");
    steps.step("driver is ready", this::probe);
    steps.step(
        "create a 1 GiB ext4 volume",
        () -> {
          volumeId = volumes.create("fs", GIB, ext4, null);
          return volumeId;
        });
    steps.step("stage it (loop device, mkfs, mount)", () -> volumes.stage(volumeId, "fs", ext4));
    steps.step("publish it (bind mount)", () -> volumes.publish(volumeId, "fs", ext4));
    steps.step(
        "write 64 MiB of data",
        () -> {
          checksum = DataFiles.writeRandom(volumes.target("fs").resolve("data.bin"), DATA_BYTES);
          return "sha256 " + checksum.substring(0, 16) + "...";
        });
    steps.step(
        "snapshot the volume",
        () -> {
          snapshotId =
              csi.controller()
                  .createSnapshot(
                      CreateSnapshotRequest.newBuilder()
                          .setName("preflight-snap")
                          .setSourceVolumeId(volumeId)
                          .build())
                  .getSnapshot()
                  .getSnapshotId();
          volumes.undoAtCleanUp(
              "snapshot",
              () ->
                  csi.controller()
                      .deleteSnapshot(
                          DeleteSnapshotRequest.newBuilder().setSnapshotId(snapshotId).build()));
          return snapshotId;
        });
    steps.step("restore the snapshot and compare data", this::restoreAndCompare);
    steps.step("expand the ext4 volume to 2 GiB", this::expandExt4);
    steps.step("read volume stats", () -> describe(volumes.stats(volumeId, "fs")));
    steps.step("xfs volume: expand online", this::expandXfsOnline);
    steps.step("reclaim deleted space", this::reclaim);
    steps.step("block volume round trip", this::blockRoundTrip);
    volumes.cleanUp(steps);
  }

  private String probe() {
    boolean ready = csi.identity().probe(ProbeRequest.getDefaultInstance()).getReady().getValue();
    if (!ready) {
      throw new IllegalStateException("Probe says not ready: the data dir is not writable");
    }
    var info = csi.identity().getPluginInfo(GetPluginInfoRequest.getDefaultInstance());
    return info.getName() + " " + info.getVendorVersion();
  }

  private String restoreAndCompare() throws IOException {
    VolumeCapability ext4 = Capabilities.mount("ext4");
    String restored =
        volumes.create("restored", GIB, ext4, ContentSources.snapshotSource(snapshotId));
    volumes.stage(restored, "restored", ext4);
    volumes.publish(restored, "restored", ext4);
    requireSameData(volumes.target("restored").resolve("data.bin"), checksum);
    volumes.release("restored", false);
    return "checksums match";
  }

  /**
   * ext4 grows online only with CAP_SYS_RESOURCE (a privileged container has it); without it the
   * volume is grown offline when it is staged again, which is what happens here then.
   */
  private String expandExt4() throws IOException {
    long wanted = 2 * GIB;
    expandController(volumeId, wanted);
    String how;
    if (Privileges.canResizeExt4Online()) {
      volumes.expandNode(volumeId, "fs", wanted);
      how = "online";
    } else {
      volumes.release("fs", true);
      volumes.stage(volumeId, "fs", Capabilities.mount("ext4"));
      volumes.publish(volumeId, "fs", Capabilities.mount("ext4"));
      how =
          "offline at restage (this process lacks CAP_SYS_RESOURCE, which online ext4 growth needs)";
    }
    requireSize(volumeId, "fs", wanted);
    requireSameData(volumes.target("fs").resolve("data.bin"), checksum);
    return "filesystem grown to 2 GiB " + how + "; data intact";
  }

  private String expandXfsOnline() throws IOException {
    VolumeCapability xfs = Capabilities.mount("xfs");
    String id = volumes.create("xfs", 512L << 20, xfs, null);
    volumes.stage(id, "xfs", xfs);
    volumes.publish(id, "xfs", xfs);
    String written = DataFiles.writeRandom(volumes.target("xfs").resolve("data.bin"), 16L << 20);
    expandController(id, GIB);
    volumes.expandNode(id, "xfs", GIB);
    requireSize(id, "xfs", GIB);
    requireSameData(volumes.target("xfs").resolve("data.bin"), written);
    volumes.release("xfs", false);
    return "512 MiB -> 1 GiB while mounted; data intact";
  }

  private void expandController(String id, long bytes) {
    csi.expand(id, bytes);
  }

  private void requireSize(String id, String slot, long bytes) {
    long total = bytes(volumes.stats(id, slot)).getTotal();
    if (total < bytes * 9 / 10) {
      throw new IllegalStateException(
          "filesystem is " + total + " bytes after growing to " + bytes);
    }
  }

  private static void requireSameData(Path file, String expected) throws IOException {
    String actual = DataFiles.sha256(file);
    if (!actual.equals(expected)) {
      throw new IllegalStateException("data changed: sha256 " + actual + " != " + expected);
    }
  }

  /**
   * Two identical volumes get 128 MiB written and deleted; one is reclaimed through the driver, the
   * other with a bare fstrim, and the bytes each gave back are compared.
   */
  private String reclaim() throws IOException {
    VolumeCapability ext4 = Capabilities.mount("ext4");
    String viaDriver = volumes.create("reclaim", 512L << 20, ext4, null);
    String viaFstrim = volumes.create("fstrim", 512L << 20, ext4, null);
    for (String[] volume : new String[][] {{viaDriver, "reclaim"}, {viaFstrim, "fstrim"}}) {
      volumes.stage(volume[0], volume[1], ext4);
      volumes.publish(volume[0], volume[1], ext4);
      Path garbage = volumes.target(volume[1]).resolve("deleted.bin");
      DataFiles.writeRandom(garbage, 128L << 20);
      Files.delete(garbage);
    }
    var response = addons.reclaimOnNode(viaDriver, volumes.staging("reclaim"));
    long before = response.getPreUsage().getUsageBytes();
    long after = response.getPostUsage().getUsageBytes();

    FileStats stats = new FileStats(new ProcessCommandRunner());
    Path image = dataDir.resolve("volumes").resolve(viaFstrim).resolve("disk.img");
    long bareBefore = stats.allocatedBytes(image);
    new ProcessCommandRunner()
        .run(
            Duration.ofMinutes(10),
            List.of("sync", "--file-system", volumes.staging("fstrim").toString()));
    new ProcessCommandRunner()
        .run(Duration.ofMinutes(10), List.of("fstrim", volumes.staging("fstrim").toString()));
    long bareFreed = bareBefore - stats.allocatedBytes(image);
    volumes.release("reclaim", false);
    volumes.release("fstrim", false);
    if (before - after < (120L << 20)) {
      throw new IllegalStateException("only " + (before - after) + " bytes were given back");
    }
    return String.format(
        "%d -> %d MiB on disk, %d MiB freed; a bare fstrim freed %d MiB (ratio %.3f)",
        before >> 20,
        after >> 20,
        (before - after) >> 20,
        bareFreed >> 20,
        (double) (before - after) / Math.max(1, bareFreed));
  }

  private String blockRoundTrip() throws IOException {
    VolumeCapability block = Capabilities.block();
    String id = volumes.create("block", 64L << 20, block, null);
    volumes.stage(id, "block", block);
    volumes.publish(id, "block", block);
    String written = DataFiles.writeRandomToDevice(volumes.target("block"), 16L << 20);
    String read = DataFiles.sha256Prefix(volumes.target("block"), 16L << 20);
    volumes.release("block", false);
    if (!written.equals(read)) {
      throw new IllegalStateException("block device returned different data");
    }
    return "16 MiB written and read back through the device";
  }

  private static VolumeUsage bytes(NodeGetVolumeStatsResponse stats) {
    return stats.getUsageList().stream()
        .filter(u -> u.getUnit() == VolumeUsage.Unit.BYTES)
        .findFirst()
        .orElseThrow(() -> new IllegalStateException("no byte usage in the stats"));
  }

  private static String describe(NodeGetVolumeStatsResponse stats) {
    VolumeUsage bytes = bytes(stats);
    return String.format(
        "%d MiB used of %d MiB; condition: %s",
        bytes.getUsed() >> 20, bytes.getTotal() >> 20, stats.getVolumeCondition().getMessage());
  }
}
