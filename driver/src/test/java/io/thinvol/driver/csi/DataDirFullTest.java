package io.thinvol.driver.csi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import csi.v1.ControllerGetVolumeRequest;
import csi.v1.NodeGetVolumeStatsRequest;
import csi.v1.VolumeCapability;
import csi.v1.VolumeCondition;
import io.thinvol.driver.DriverHarness;
import io.thinvol.driver.client.Capabilities;
import io.thinvol.driver.host.MountTable;
import io.thinvol.driver.metrics.HttpEndpoints;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A data dir that fills up under a written volume is visible (volume condition, metric) and loses
 * no write silently: the writer inside the volume gets an error, the filesystem stops instead of
 * pretending.
 */
class DataDirFullTest {

  private static final long MIB = 1L << 20;

  private DriverHarness driver;
  private HttpEndpoints http;

  @AfterEach
  void stop() throws IOException {
    if (http != null) {
      http.close();
    }
    if (driver != null) {
      driver.close();
    }
  }

  @Test
  void ext4VolumeOnAFullDataDir() throws Exception {
    fillUnderAWrittenVolume("ext4", 128 * MIB, 64 * MIB);
  }

  @Test
  void xfsVolumeOnAFullDataDirWithBoundedRetries() throws Exception {
    fillUnderAWrittenVolume("xfs", 512 * MIB, 320 * MIB);
  }

  private void fillUnderAWrittenVolume(String fs, long dataDirBytes, long volumeBytes)
      throws Exception {
    driver = DriverHarness.onSmallDataDir(dataDirBytes, 10);
    http = driver.serveHttp();
    VolumeCapability capability = Capabilities.mount(fs);
    String id = driver.create("filled", volumeBytes, capability);
    Path staging = driver.staging("f");
    Path target = driver.target("f");
    driver.stage(id, staging, capability);
    driver.publish(id, staging, target, capability, false);
    if (fs.equals("xfs")) {
      assertXfsRetriesBounded(staging);
    }
    writeSynced(target.resolve("before.bin"), 4 * MIB);
    assertThat(condition(id, target).getAbnormal()).isFalse();
    assertThat(metrics()).contains("thinvol_data_dir_full 0");

    Path filler = driver.dataFilesystem().mountPoint().resolve("filler");
    driver.dataFilesystem().fill(filler);

    IOException lost =
        catchThrowableOfType(
            IOException.class, () -> writeSynced(target.resolve("after.bin"), 16 * MIB));
    assertThat(lost).as("the writer must learn that its data did not reach the disk").isNotNull();

    VolumeCondition condition = condition(id, target);
    assertThat(condition.getAbnormal()).isTrue();
    assertThat(condition.getMessage()).contains("data dir", "is full", "cannot grow");
    assertThat(controllerCondition(id).getMessage()).contains("is full");
    assertThat(metrics()).contains("thinvol_data_dir_full 1");

    Files.delete(filler);
    assertThat(metrics()).contains("thinvol_data_dir_full 0");
    assertThat(condition(id, target).getMessage()).doesNotContain("is full");
    driver.unpublish(id, target);
    driver.unstage(id, staging);
    assertThat(MountTable.read().under(driver.root())).isEmpty();
  }

  private static void assertXfsRetriesBounded(Path staging) throws IOException {
    String device =
        Path.of(MountTable.read().at(staging).orElseThrow().source()).getFileName().toString();
    Path errors = Path.of("/sys/fs/xfs", device, "error", "metadata", "ENOSPC");
    assertThat(Files.readString(errors.resolve("retry_timeout_seconds")).strip()).isEqualTo("30");
    assertThat(Files.readString(errors.resolve("max_retries")).strip()).isNotEqualTo("-1");
  }

  /** Writes random bytes and fsyncs them: an error on the way to the disk surfaces here. */
  private static void writeSynced(Path file, long bytes) throws IOException {
    Random random = new Random(1);
    byte[] chunk = new byte[(int) MIB];
    try (FileChannel channel =
        FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
      for (long at = 0; at < bytes; at += MIB) {
        random.nextBytes(chunk);
        channel.write(ByteBuffer.wrap(chunk));
      }
      channel.force(true);
    }
  }

  private VolumeCondition condition(String id, Path target) {
    return driver
        .csi()
        .node()
        .nodeGetVolumeStats(
            NodeGetVolumeStatsRequest.newBuilder()
                .setVolumeId(id)
                .setVolumePath(target.toString())
                .build())
        .getVolumeCondition();
  }

  private VolumeCondition controllerCondition(String id) {
    return driver
        .csi()
        .controller()
        .controllerGetVolume(ControllerGetVolumeRequest.newBuilder().setVolumeId(id).build())
        .getStatus()
        .getVolumeCondition();
  }

  private String metrics() throws Exception {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + http.port() + "/metrics"))
                .build(),
            HttpResponse.BodyHandlers.ofString())
        .body();
  }
}
