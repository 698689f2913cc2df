package io.thinvol.driver.csi;

import static io.thinvol.driver.GrpcAssertions.assertCode;
import static org.assertj.core.api.Assertions.assertThat;

import csi.v1.CapacityRange;
import csi.v1.ControllerGetVolumeRequest;
import csi.v1.CreateVolumeRequest;
import csi.v1.DeleteSnapshotRequest;
import csi.v1.DeleteVolumeRequest;
import csi.v1.ListSnapshotsRequest;
import csi.v1.NodeExpandVolumeRequest;
import csi.v1.NodeGetVolumeStatsRequest;
import csi.v1.ProbeRequest;
import csi.v1.ValidateVolumeCapabilitiesRequest;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.thinvol.driver.DriverHarness;
import io.thinvol.driver.client.Capabilities;
import io.thinvol.driver.client.CsiClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Hostile ids, names, paths and sizes: a clear refusal each time, nothing touched, still up. */
class BadInputTest {

  private static final List<String> BAD_IDS =
      List.of(
          "..",
          "../../etc",
          "/etc/passwd",
          "vol-../../../tmp",
          "vol-0123\u0000abc",
          "a".repeat(10_000),
          "VOL-0123456789ABCDEF0123456789ABCDEF",
          "vol-0123456789abcdef0123456789abcdef/../x");
  private static final List<String> BAD_PATHS =
      List.of(
          "relative/target",
          "/",
          "/a/../b",
          "/a//b",
          "/a/./b",
          "/a/b\u0000c",
          "/a\nb",
          "/" + "x".repeat(5_000));

  private static DriverHarness driver;
  private static Path sentinel;
  private static String volume;

  @BeforeAll
  static void start() throws IOException {
    driver = new DriverHarness();
    sentinel = driver.root().resolve("outside");
    Files.createDirectories(sentinel);
    Files.writeString(sentinel.resolve("keep.txt"), "precious");
    volume = driver.create("real", 32 << 20, Capabilities.mount("ext4"));
  }

  @AfterAll
  static void stop() throws IOException {
    driver.close();
  }

  @Test
  @DisplayName("Malformed ids are NOT_FOUND everywhere (deletes of them succeed) and never paths")
  void badIds() {
    for (String id : BAD_IDS) {
      for (Runnable call : callsWithVolumeId(id)) {
        StatusRuntimeException e = assertCode(Status.Code.NOT_FOUND, call::run);
        assertThat(e.getStatus().getDescription()).hasSizeLessThan(400);
      }
      driver
          .csi()
          .controller()
          .deleteVolume(DeleteVolumeRequest.newBuilder().setVolumeId(id).build());
      driver
          .csi()
          .controller()
          .deleteSnapshot(DeleteSnapshotRequest.newBuilder().setSnapshotId(id).build());
      assertThat(
              driver
                  .csi()
                  .controller()
                  .listSnapshots(ListSnapshotsRequest.newBuilder().setSnapshotId(id).build())
                  .getEntriesList())
          .isEmpty();
    }
    assertUntouched();
  }

  private static List<Runnable> callsWithVolumeId(String id) {
    String path = driver.target("t").toString();
    return List.of(
        () -> driver.stage(id, driver.staging("s"), Capabilities.mount("ext4")),
        () ->
            driver.publish(
                id, driver.staging("s"), driver.target("t"), Capabilities.mount("ext4"), false),
        () -> driver.unpublish(id, driver.target("t")),
        () -> driver.unstage(id, driver.staging("s")),
        () ->
            driver
                .csi()
                .controller()
                .controllerGetVolume(
                    ControllerGetVolumeRequest.newBuilder().setVolumeId(id).build()),
        () ->
            driver
                .csi()
                .controller()
                .validateVolumeCapabilities(
                    ValidateVolumeCapabilitiesRequest.newBuilder()
                        .setVolumeId(id)
                        .addVolumeCapabilities(Capabilities.block())
                        .build()),
        () ->
            driver.csi().controller().controllerExpandVolume(CsiClient.expandRequest(id, 1 << 30)),
        () ->
            driver
                .csi()
                .node()
                .nodeGetVolumeStats(
                    NodeGetVolumeStatsRequest.newBuilder()
                        .setVolumeId(id)
                        .setVolumePath(path)
                        .build()),
        () ->
            driver
                .csi()
                .node()
                .nodeExpandVolume(
                    NodeExpandVolumeRequest.newBuilder()
                        .setVolumeId(id)
                        .setVolumePath(path)
                        .build()));
  }

  @Test
  @DisplayName(
      "Relative, odd and oversized paths are INVALID_ARGUMENT (a volume_path NOT_FOUND) and"
          + " nothing is created")
  void badPaths() {
    for (String path : BAD_PATHS) {
      Path asGiven = Path.of("/tmp/ignored");
      List<Runnable> calls =
          List.of(
              () ->
                  driver
                      .csi()
                      .node()
                      .nodeStageVolume(
                          csi.v1.NodeStageVolumeRequest.newBuilder()
                              .setVolumeId(volume)
                              .setStagingTargetPath(path)
                              .setVolumeCapability(Capabilities.mount("ext4"))
                              .build()),
              () ->
                  driver
                      .csi()
                      .node()
                      .nodePublishVolume(
                          csi.v1.NodePublishVolumeRequest.newBuilder()
                              .setVolumeId(volume)
                              .setStagingTargetPath(driver.staging("s").toString())
                              .setTargetPath(path)
                              .setVolumeCapability(Capabilities.mount("ext4"))
                              .build()),
              () ->
                  driver
                      .csi()
                      .node()
                      .nodeUnpublishVolume(
                          csi.v1.NodeUnpublishVolumeRequest.newBuilder()
                              .setVolumeId(volume)
                              .setTargetPath(path)
                              .build()),
              () ->
                  driver
                      .csi()
                      .node()
                      .nodeUnstageVolume(
                          csi.v1.NodeUnstageVolumeRequest.newBuilder()
                              .setVolumeId(volume)
                              .setStagingTargetPath(path)
                              .build()));
      for (Runnable call : calls) {
        StatusRuntimeException e = assertCode(Status.Code.INVALID_ARGUMENT, call::run);
        assertThat(e.getStatus().getDescription()).hasSizeLessThan(400);
      }
      // "Volume does not exist (on the specified volume_path)": no volume is at such a path
      StatusRuntimeException stats =
          assertCode(
              Status.Code.NOT_FOUND,
              () ->
                  driver
                      .csi()
                      .node()
                      .nodeGetVolumeStats(
                          NodeGetVolumeStatsRequest.newBuilder()
                              .setVolumeId(volume)
                              .setVolumePath(path)
                              .build()));
      assertThat(stats.getStatus().getDescription()).hasSizeLessThan(400);
      assertThat(asGiven).doesNotExist();
    }
    assertThat(driver.root().resolve("staging")).doesNotExist();
    assertUntouched();
  }

  @Test
  @DisplayName("Hostile names and sizes are INVALID_ARGUMENT; the driver stays up")
  void badNamesAndSizes() {
    for (String name : List.of("bad\u0000name", "bell\u0007", "x".repeat(10_000), "c1\u0085ctl")) {
      assertCode(
          Status.Code.INVALID_ARGUMENT,
          () ->
              driver
                  .csi()
                  .controller()
                  .createVolume(
                      CreateVolumeRequest.newBuilder()
                          .setName(name)
                          .addVolumeCapabilities(Capabilities.block())
                          .build()));
    }
    assertCode(
        Status.Code.INVALID_ARGUMENT,
        () ->
            driver.csi().controller().controllerExpandVolume(CsiClient.expandRequest(volume, -1)));
    assertCode(
        Status.Code.INVALID_ARGUMENT,
        () ->
            driver
                .csi()
                .node()
                .nodeExpandVolume(
                    NodeExpandVolumeRequest.newBuilder()
                        .setVolumeId(volume)
                        .setVolumePath(driver.target("t").toString())
                        .setCapacityRange(CapacityRange.newBuilder().setLimitBytes(-1))
                        .build()));
    assertThat(
            driver.csi().identity().probe(ProbeRequest.getDefaultInstance()).getReady().getValue())
        .isTrue();
    assertUntouched();
  }

  private static void assertUntouched() {
    try (Stream<Path> volumes = Files.list(driver.dataDir().resolve("volumes"));
        Stream<Path> outside = Files.list(sentinel)) {
      assertThat(volumes).containsExactly(driver.dataDir().resolve("volumes").resolve(volume));
      assertThat(outside).containsExactly(sentinel.resolve("keep.txt"));
      assertThat(Files.readString(sentinel.resolve("keep.txt"))).isEqualTo("precious");
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }
}
