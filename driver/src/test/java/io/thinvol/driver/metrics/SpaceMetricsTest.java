package io.thinvol.driver.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.thinvol.driver.DriverHarness;
import io.thinvol.driver.SmallFilesystem;
import io.thinvol.driver.client.Capabilities;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The space figures the alerts and the dashboard read (docs/monitoring.md), on a real data dir of
 * its own: its size, what was promised, what the images occupy, the ratio, abnormal volumes and
 * readiness, as the data dir fills and an image is damaged.
 */
class SpaceMetricsTest {

  private static final long MIB = 1L << 20;

  private SmallFilesystem fs;
  private DriverHarness driver;
  private HttpEndpoints http;
  private final HttpClient client = HttpClient.newHttpClient();

  @AfterEach
  void stop() throws IOException {
    if (http != null) {
      http.close();
    }
    if (driver != null) {
      driver.close();
    }
    if (fs != null) {
      fs.close();
    }
  }

  @Test
  void promisedAllocatedAbnormalAndReadyFollowTheDataDir() throws Exception {
    fs = new SmallFilesystem(64 * MIB);
    driver = DriverHarness.withDataDir(fs.mountPoint(), 3.0);
    String written = driver.create("written", 32 * MIB, Capabilities.mount("ext4"));
    String damaged = driver.create("damaged", 48 * MIB, Capabilities.mount("ext4"));
    writeInto(image(written), 8 * MIB);
    // the images' allocation is measured at start and then every few seconds: start again
    driver.stop();
    driver.start();
    http = driver.serveHttp();

    String metrics = scrape();
    assertThat(value(metrics, "thinvol_data_dir_size_bytes"))
        .isEqualTo(fs.mountPoint().toFile().getTotalSpace())
        .isBetween(32 * MIB, 64 * MIB);
    assertThat(value(metrics, "thinvol_provisioned_bytes")).isEqualTo(80 * MIB);
    assertThat(value(metrics, "thinvol_allocated_bytes"))
        .as("the 8 MiB written, not the 80 MiB promised")
        .isBetween(8 * MIB, 9 * MIB);
    assertThat(metrics)
        .contains("thinvol_overprovision_ratio 3.0\n")
        .contains("thinvol_abnormal_volumes 0\n")
        .contains("thinvol_ready 1\n");

    try (RandomAccessFile file = new RandomAccessFile(image(damaged).toFile(), "rw")) {
      file.setLength(MIB);
    }
    assertThat(scrape()).contains("thinvol_abnormal_volumes 1\n");

    Path filler = fs.mountPoint().resolve("filler");
    fs.fill(filler);
    assertThat(scrape())
        .as("full: the written volume's unallocated parts cannot take writes either")
        .contains("thinvol_data_dir_full 1\n")
        .contains("thinvol_ready 0\n")
        .contains("thinvol_abnormal_volumes 2\n");
    assertThat(get("/readyz").statusCode()).isEqualTo(503);

    Files.delete(filler);
    assertThat(scrape())
        .contains("thinvol_ready 1\n")
        .contains("thinvol_abnormal_volumes 1\n")
        .contains("thinvol_provisioned_bytes " + 80 * MIB + "\n");
  }

  @Test
  void readyIsZeroWhileTheDataDirIsMissing() throws Exception {
    driver = new DriverHarness();
    http = driver.serveHttp();
    assertThat(scrape()).contains("thinvol_abnormal_volumes 0\n").contains("thinvol_ready 1\n");
    driver.loseDataDir();
    assertThat(scrape()).contains("thinvol_ready 0\n");
    driver.restoreDataDir();
    assertThat(scrape()).contains("thinvol_ready 1\n");
  }

  @Test
  void everyMetricIsInTheDocsDriverTableAndEveryDocumentedOneIsServed() throws Exception {
    driver = new DriverHarness();
    http = driver.serveHttp();
    Set<String> served = new TreeSet<>();
    Matcher type = Pattern.compile("(?m)^# TYPE (\\S+) ").matcher(scrape());
    while (type.find()) {
      served.add(type.group(1));
    }
    String docs = Files.readString(Path.of("..", "docs", "monitoring.md"));
    String table = docs.substring(docs.indexOf("### Driver metrics"), docs.indexOf("### Operator"));
    Set<String> documented = new TreeSet<>();
    Matcher row = Pattern.compile("(?m)^\\| `(thinvol_[a-z_]+)` \\|").matcher(table);
    while (row.find()) {
      documented.add(row.group(1));
    }
    assertThat(documented).containsAll(served);
    documented.remove("thinvol_token_signing_keys"); // only with the TLS port
    assertThat(served).containsAll(documented);
  }

  private Path image(String volumeId) {
    return driver.dataDir().resolve("volumes").resolve(volumeId).resolve("disk.img");
  }

  private static void writeInto(Path image, long bytes) throws IOException {
    byte[] chunk = new byte[(int) MIB];
    Arrays.fill(chunk, (byte) 0x5a);
    try (RandomAccessFile file = new RandomAccessFile(image.toFile(), "rw")) {
      for (long at = 0; at < bytes; at += MIB) {
        file.write(chunk);
      }
      file.getFD().sync();
    }
  }

  private String scrape() throws IOException, InterruptedException {
    HttpResponse<String> response = get("/metrics");
    assertThat(response.statusCode()).isEqualTo(200);
    return response.body();
  }

  private HttpResponse<String> get(String path) throws IOException, InterruptedException {
    return client.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + http.port() + path)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static long value(String metrics, String name) {
    Matcher matcher = Pattern.compile("(?m)^" + name + " (\\d+)$").matcher(metrics);
    assertThat(matcher.find()).as("%s in%n%s", name, metrics).isTrue();
    return Long.parseLong(matcher.group(1));
  }
}
