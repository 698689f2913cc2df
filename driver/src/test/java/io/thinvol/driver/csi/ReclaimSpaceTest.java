package io.thinvol.driver.csi;

import static io.thinvol.driver.GrpcAssertions.assertCode;
import static io.thinvol.driver.GrpcAssertions.message;
import static org.assertj.core.api.Assertions.assertThat;

import csi.v1.VolumeCapability;
import csiaddons.reclaimspace.ControllerReclaimSpaceRequest;
import csiaddons.reclaimspace.ControllerReclaimSpaceResponse;
import csiaddons.reclaimspace.NodeReclaimSpaceRequest;
import csiaddons.reclaimspace.NodeReclaimSpaceResponse;
import io.grpc.Status;
import io.thinvol.driver.DriverHarness;
import io.thinvol.driver.client.Capabilities;
import io.thinvol.driver.host.FileStats;
import io.thinvol.driver.host.MountTable;
import io.thinvol.driver.host.ProcessCommandRunner;
import io.thinvol.driver.preflight.DataFiles;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** CSI-Addons ReclaimSpace on real loop devices: the bytes given back, data untouched. */
class ReclaimSpaceTest {

  private static final long MIB = 1L << 20;
  private final FileStats stats = new FileStats(new ProcessCommandRunner());
  private DriverHarness driver;

  @BeforeEach
  void start() throws IOException {
    driver = new DriverHarness();
  }

  @AfterEach
  void stop() throws IOException {
    driver.trims().hang(false);
    driver.close();
  }

  private Path image(String id) {
    return driver.dataDir().resolve("volumes").resolve(id).resolve("disk.img");
  }

  private String stagedVolume(String name, String fs) {
    VolumeCapability capability = Capabilities.mount(fs);
    String id = driver.create(name, 1024 * MIB, capability);
    driver.stage(id, driver.staging(name), capability);
    driver.publish(id, driver.staging(name), driver.target(name), capability, false);
    return id;
  }

  /** Writes {@code bytes} of random data, syncs it, and deletes it again. */
  private static void writeAndDelete(Path directory, long bytes) throws IOException {
    Path file = directory.resolve("garbage.bin");
    DataFiles.writeRandom(file, bytes);
    Files.delete(file);
  }

  @Test
  @DisplayName(
      "NodeReclaimSpace gives back what was deleted just now, as Kubernetes calls it and by id")
  void nodeReclaim() throws IOException {
    String id = stagedVolume("online", "ext4");
    writeAndDelete(driver.target("online"), 256 * MIB);

    NodeReclaimSpaceResponse response = driver.addons().reclaimOnNode(id, driver.staging("online"));
    long pre = response.getPreUsage().getUsageBytes();
    long post = response.getPostUsage().getUsageBytes();
    assertThat(pre - post).as("reclaimed").isGreaterThanOrEqualTo(240 * MIB);
    assertThat(post).as("post_usage is what stat says").isEqualTo(stats.allocatedBytes(image(id)));

    writeAndDelete(driver.target("online"), 64 * MIB);
    NodeReclaimSpaceResponse byId = driver.addons().reclaimOnNode(id, null);
    assertThat(byId.getPreUsage().getUsageBytes() - byId.getPostUsage().getUsageBytes())
        .isGreaterThanOrEqualTo(60 * MIB);
    assertThat(byId.getPostUsage().getUsageBytes()).isEqualTo(stats.allocatedBytes(image(id)));
    driver.unpublish(id, driver.target("online"));
    driver.unstage(id, driver.staging("online"));
  }

  @Test
  @DisplayName(
      "NodeReclaimSpace commits the journal, no syncfs: with nothing to commit, no flush of the"
          + " device (each one an fsync of the image on the data dir)")
  void nothingToCommitSendsNoFlush() throws IOException {
    String id = stagedVolume("clean", "ext4");
    writeAndDelete(Files.createDirectory(driver.target("clean").resolve("dir")), 64 * MIB);
    NodeReclaimSpaceResponse first = driver.addons().reclaimOnNode(id, driver.staging("clean"));
    assertThat(first.getPreUsage().getUsageBytes() - first.getPostUsage().getUsageBytes())
        .as("what a delete in a subdirectory freed, committed by the call")
        .isGreaterThanOrEqualTo(60 * MIB);
    long flushes = flushesOf(driver.staging("clean"));

    NodeReclaimSpaceResponse second = driver.addons().reclaimOnNode(id, driver.staging("clean"));

    assertThat(flushesOf(driver.staging("clean")))
        .as("flushes of the loop device")
        .isEqualTo(flushes);
    assertThat(second.getPostUsage().getUsageBytes()).isEqualTo(stats.allocatedBytes(image(id)));
    driver.unpublish(id, driver.target("clean"));
    driver.unstage(id, driver.staging("clean"));
  }

  /** Flush requests the device mounted at {@code mountPoint} has completed (its sysfs stat). */
  private static long flushesOf(Path mountPoint) throws IOException {
    String device = MountTable.read().at(mountPoint).orElseThrow().majorMinor();
    String[] fields =
        Files.readString(Path.of("/sys/dev/block", device, "stat")).strip().split("\\s+");
    return Long.parseLong(fields[15]); // the 16th field: flush requests completed
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"ext4", "xfs"})
  @DisplayName(
      "ControllerReclaimSpace on an unstaged filesystem: space back, clean fs, data intact")
  void offlineFilesystem(String fs) throws IOException {
    String id = stagedVolume("offline", fs);
    String kept = DataFiles.writeRandom(driver.target("offline").resolve("kept.bin"), 32 * MIB);
    writeAndDelete(driver.target("offline"), 256 * MIB);
    driver.unpublish(id, driver.target("offline"));
    driver.unstage(id, driver.staging("offline"));

    ControllerReclaimSpaceResponse response = driver.addons().reclaimOffline(id);
    long pre = response.getPreUsage().getUsageBytes();
    long post = response.getPostUsage().getUsageBytes();
    assertThat(pre - post).as("reclaimed").isGreaterThanOrEqualTo(240 * MIB);
    assertThat(post).isEqualTo(stats.allocatedBytes(image(id)));
    assertThat(driver.dataDir().resolve(".reclaim").resolve(id)).doesNotExist();

    List<String> check =
        fs.equals("ext4")
            ? List.of("e2fsck", "-f", "-n", image(id).toString())
            : List.of("xfs_repair", "-n", "-f", image(id).toString());
    assertThat(
            new ProcessCommandRunner().runAllowingFailure(Duration.ofMinutes(2), check).exitCode())
        .as("filesystem check after the offline trim")
        .isZero();

    VolumeCapability capability = Capabilities.mount(fs);
    driver.stage(id, driver.staging("offline"), capability);
    driver.publish(id, driver.staging("offline"), driver.target("offline"), capability, false);
    assertThat(DataFiles.sha256(driver.target("offline").resolve("kept.bin"))).isEqualTo(kept);
    driver.unpublish(id, driver.target("offline"));
    driver.unstage(id, driver.staging("offline"));
  }

  @Test
  @DisplayName(
      "ControllerReclaimSpace on a block volume: zero ranges become holes, content identical")
  void offlineBlock() throws IOException {
    VolumeCapability block = Capabilities.block();
    String id = driver.create("block", 64 * MIB, block);
    driver.stage(id, driver.staging("block"), block);
    driver.publish(id, driver.staging("block"), driver.blockTarget("block"), block, false);
    Path device = driver.blockTarget("block");
    DataFiles.writeRandomToDevice(device, 8 * MIB);
    try (FileChannel channel = FileChannel.open(device, StandardOpenOption.WRITE)) {
      channel.write(java.nio.ByteBuffer.allocate((int) (16 * MIB)), 8 * MIB); // explicit zeros
      channel.write(java.nio.ByteBuffer.wrap(new byte[] {1, 2, 3, 4}), 24 * MIB);
      channel.force(true);
    }
    String whole = DataFiles.sha256Prefix(device, 64 * MIB);

    assertCode(Status.Code.UNIMPLEMENTED, () -> driver.addons().reclaimOffline(id));
    assertThat(
            message(
                assertCode(
                    Status.Code.UNIMPLEMENTED,
                    () -> driver.addons().reclaimOnNode(id, driver.staging("block")))))
        .contains("block volume");

    driver.unpublish(id, device);
    driver.unstage(id, driver.staging("block"));
    assertThat(stats.allocatedBytes(image(id))).isGreaterThanOrEqualTo(24 * MIB);
    ControllerReclaimSpaceResponse response = driver.addons().reclaimOffline(id);
    assertThat(response.getPreUsage().getUsageBytes() - response.getPostUsage().getUsageBytes())
        .as("the 16 MiB of written zeros")
        .isGreaterThanOrEqualTo(16 * MIB);
    assertThat(response.getPostUsage().getUsageBytes()).isLessThanOrEqualTo(8 * MIB + 64 * 1024);

    driver.stage(id, driver.staging("block"), block);
    driver.publish(id, driver.staging("block"), device, block, false);
    assertThat(DataFiles.sha256Prefix(device, 64 * MIB)).as("content unchanged").isEqualTo(whole);
    driver.unpublish(id, device);
    driver.unstage(id, driver.staging("block"));
  }

  @Test
  @DisplayName(
      "One reclaim per volume: a second is ABORTED, so is NodeUnstage, until the first ends")
  void concurrentCalls() throws Exception {
    String id = stagedVolume("busy", "ext4");
    writeAndDelete(driver.target("busy"), 32 * MIB);
    driver.trims().hold();
    CompletableFuture<NodeReclaimSpaceResponse> first =
        CompletableFuture.supplyAsync(
            () -> driver.addons().reclaimOnNode(id, driver.staging("busy")));
    driver.trims().awaitArrival();

    assertCode(
        Status.Code.ABORTED, () -> driver.addons().reclaimOnNode(id, driver.staging("busy")));
    assertCode(Status.Code.ABORTED, () -> driver.addons().reclaimOffline(id));
    assertCode(Status.Code.ABORTED, () -> driver.unstage(id, driver.staging("busy")));

    driver.trims().release();
    NodeReclaimSpaceResponse done = first.get(60, TimeUnit.SECONDS);
    assertThat(done.getPreUsage().getUsageBytes())
        .isGreaterThan(done.getPostUsage().getUsageBytes());
    driver.unpublish(id, driver.target("busy"));
    driver.unstage(id, driver.staging("busy"));
  }

  @Test
  @DisplayName("A trim that outlives the call's deadline is killed and the volume is free again")
  void deadline() {
    String id = stagedVolume("slow", "ext4");
    driver.trims().hang(true);
    long start = System.nanoTime();
    assertCode(
        Status.Code.DEADLINE_EXCEEDED,
        () ->
            driver
                .addons()
                .node()
                .withDeadlineAfter(3, TimeUnit.SECONDS)
                .nodeReclaimSpace(
                    NodeReclaimSpaceRequest.newBuilder()
                        .setVolumeId(id)
                        .setStagingTargetPath(driver.staging("slow").toString())
                        .build()));
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
    driver.trims().hang(false);
    driver
        .addons()
        .reclaimOnNode(id, driver.staging("slow")); // not ABORTED: nothing is left running
    driver.unpublish(id, driver.target("slow"));
    driver.unstage(id, driver.staging("slow"));
  }

  @Test
  @DisplayName("The spec's error table, row by row")
  void errorTable() {
    assertCode(
        Status.Code.INVALID_ARGUMENT,
        () ->
            driver.addons().node().nodeReclaimSpace(NodeReclaimSpaceRequest.getDefaultInstance()));
    assertCode(
        Status.Code.INVALID_ARGUMENT,
        () ->
            driver
                .addons()
                .controller()
                .controllerReclaimSpace(ControllerReclaimSpaceRequest.getDefaultInstance()));
    for (String unknown :
        List.of("vol-ffffffffffffffffffffffffffffffff", "../../etc", "x".repeat(5000))) {
      assertCode(Status.Code.NOT_FOUND, () -> driver.addons().reclaimOnNode(unknown, null));
      assertCode(Status.Code.NOT_FOUND, () -> driver.addons().reclaimOffline(unknown));
    }
    String id = driver.create("unstaged", 64 * MIB, Capabilities.mount("ext4"));
    assertThat(
            message(
                assertCode(
                    Status.Code.FAILED_PRECONDITION,
                    () -> driver.addons().reclaimOnNode(id, null))))
        .contains("not staged");
    assertCode(
        Status.Code.INVALID_ARGUMENT,
        () ->
            driver
                .addons()
                .node()
                .nodeReclaimSpace(
                    NodeReclaimSpaceRequest.newBuilder()
                        .setVolumeId(id)
                        .setStagingTargetPath("relative/path")
                        .build()));
    ControllerReclaimSpaceResponse neverFormatted = driver.addons().reclaimOffline(id);
    assertThat(neverFormatted.getPostUsage().getUsageBytes())
        .isEqualTo(neverFormatted.getPreUsage().getUsageBytes());
  }
}
