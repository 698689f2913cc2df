package io.thinvol.driver.csi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import csi.v1.ControllerGetVolumeRequest;
import csi.v1.ProbeRequest;
import csi.v1.VolumeCondition;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.thinvol.driver.DriverHarness;
import io.thinvol.driver.client.Capabilities;
import io.thinvol.driver.host.ProcessCommandRunner;
import io.thinvol.driver.metrics.HttpEndpoints;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * A data dir that turns read-only under a running driver (as ext4 does on an I/O error) is news for
 * readiness, the volumes' conditions and creation, never for liveness: the livenessprobe sidecar
 * fails a plugin whose Probe answers ready=false, and the kubelet would restart it every minute for
 * as long as the disk stays read-only.
 */
class DataDirTroubleTest {

  private static final Duration TIMEOUT = Duration.ofSeconds(30);
  private final ProcessCommandRunner host = new ProcessCommandRunner();
  private final HttpClient http = HttpClient.newHttpClient();
  private DriverHarness driver;
  private HttpEndpoints endpoints;
  private Path readOnly;

  @AfterEach
  void stop() throws IOException {
    try {
      if (readOnly != null) {
        host.run(TIMEOUT, List.of("umount", readOnly.toString()));
      }
    } finally {
      if (endpoints != null) {
        endpoints.close();
      }
      driver.close();
    }
  }

  @Test
  @DisplayName("Read-only data dir: liveness passes, readiness fails, volume condition abnormal")
  void readOnlyDataDir() throws Exception {
    driver = new DriverHarness();
    endpoints = driver.serveHttp();
    String id = driver.create("kept", 64L << 20, Capabilities.mount("ext4"));
    assertThat(condition(id).getAbnormal()).isFalse();

    remountReadOnly(driver.dataDir());

    assertThat(probeReady())
        .as("Probe, which the livenessprobe sidecar turns into liveness")
        .isTrue();
    assertThat(get("/healthz").statusCode()).isEqualTo(200);
    HttpResponse<String> readiness = get("/readyz");
    assertThat(readiness.statusCode()).isEqualTo(503);
    assertThat(readiness.body()).contains(driver.dataDir().toString(), "not writable");
    VolumeCondition condition = condition(id);
    assertThat(condition.getAbnormal()).isTrue();
    assertThat(condition.getMessage()).contains("cannot take writes", "not writable");
    StatusRuntimeException refused =
        catchThrowableOfType(
            StatusRuntimeException.class,
            () -> driver.create("new", 64L << 20, Capabilities.mount("ext4")));
    assertThat(refused.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(refused.getStatus().getDescription()).contains("not writable");

    host.run(TIMEOUT, List.of("umount", readOnly.toString()));
    readOnly = null;
    assertThat(get("/readyz").statusCode()).isEqualTo(200);
    assertThat(condition(id).getAbnormal()).isFalse();
    driver.create("new", 64L << 20, Capabilities.mount("ext4"));
  }

  /** A read-only mount over the data dir: new writes fail with EROFS, as on a failed disk. */
  private void remountReadOnly(Path dir) {
    host.run(TIMEOUT, List.of("mount", "--bind", dir.toString(), dir.toString()));
    readOnly = dir;
    host.run(TIMEOUT, List.of("mount", "-o", "remount,bind,ro", dir.toString()));
  }

  private boolean probeReady() {
    return driver.csi().identity().probe(ProbeRequest.getDefaultInstance()).getReady().getValue();
  }

  private VolumeCondition condition(String id) {
    return driver
        .csi()
        .controller()
        .controllerGetVolume(ControllerGetVolumeRequest.newBuilder().setVolumeId(id).build())
        .getStatus()
        .getVolumeCondition();
  }

  private HttpResponse<String> get(String path) throws IOException, InterruptedException {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + endpoints.port() + path)).build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
