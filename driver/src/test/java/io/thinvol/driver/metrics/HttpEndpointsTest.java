package io.thinvol.driver.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.thinvol.driver.DriverHarness;
import io.thinvol.driver.client.Capabilities;
import io.thinvol.driver.preflight.DataFiles;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** /healthz, /readyz and /metrics of a running driver, after real calls. */
class HttpEndpointsTest {

  private DriverHarness driver;
  private HttpEndpoints http;
  private final HttpClient client = HttpClient.newHttpClient();

  @BeforeEach
  void start() throws IOException {
    driver = new DriverHarness();
    http = driver.serveHttp();
  }

  @AfterEach
  void stop() throws IOException {
    http.close();
    driver.close();
  }

  private HttpResponse<String> get(String path) throws IOException, InterruptedException {
    return client.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + http.port() + path)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void healthAndReadiness() throws Exception {
    assertThat(get("/healthz").statusCode()).isEqualTo(200);
    assertThat(get("/readyz").statusCode()).isEqualTo(200);
    driver.loseDataDir();
    HttpResponse<String> notReady = get("/readyz");
    assertThat(notReady.statusCode()).isEqualTo(503);
    assertThat(notReady.body()).contains("is missing or not a directory");
    driver.restoreDataDir();
  }

  @Test
  void metricsCountCallsByCodeAndReclaimedBytes() throws Exception {
    String id = driver.create("measured", 256L << 20, Capabilities.mount("ext4"));
    catchThrowable(() -> driver.create("", 1, Capabilities.mount("ext4")));
    driver.stage(id, driver.staging("m"), Capabilities.mount("ext4"));
    driver.publish(id, driver.staging("m"), driver.target("m"), Capabilities.mount("ext4"), false);
    DataFiles.writeRandom(driver.target("m").resolve("x.bin"), 32L << 20);
    Files.delete(driver.target("m").resolve("x.bin"));
    driver.addons().reclaimOnNode(id, driver.staging("m"));

    String metrics = get("/metrics").body();
    assertThat(metrics)
        .contains("thinvol_grpc_requests_total{method=\"CreateVolume\",code=\"OK\"} 1")
        .contains(
            "thinvol_grpc_requests_total{method=\"CreateVolume\",code=\"INVALID_ARGUMENT\"} 1")
        .contains("thinvol_grpc_requests_total{method=\"NodeReclaimSpace\",code=\"OK\"} 1")
        .contains(
            "thinvol_grpc_request_duration_seconds_bucket{method=\"NodeStageVolume\",le=\"+Inf\"} 1")
        .contains("thinvol_grpc_request_duration_seconds_count{method=\"CreateVolume\"} 2")
        .contains("thinvol_volumes 1")
        .containsPattern("thinvol_capacity_available_bytes [1-9][0-9]*")
        .containsPattern("thinvol_reclaimed_bytes_total\\{side=\"node\"} [1-9][0-9]{7,}");
    driver.unpublish(id, driver.target("m"));
    driver.unstage(id, driver.staging("m"));
  }
}
