package io.thinvol.operator.health;

import static org.assertj.core.api.Assertions.assertThat;

import io.thinvol.addons.MutableClock;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The kubelet's view of the operator: an informer whose watch is being opened again does not fail
 * liveness (it answered 503 "an informer is unhealthy" four times while the snapshot informers
 * reconnected, which would have had the operator restarted for nothing); one that stays unhealthy
 * does.
 */
class HealthEndpointsTest {

  private static final String SNAPSHOTS = "snapshot-content-node/VolumeSnapshotContentInformer";

  private final MutableClock clock = new MutableClock(Instant.parse("2026-11-24T10:00:00Z"));
  private Set<String> unhealthy = Set.of();
  private final AtomicBoolean started = new AtomicBoolean(true);
  private Optional<String> waiting = Optional.empty();
  private HealthServer server;

  @BeforeEach
  void start() throws IOException {
    server =
        HealthServer.start(
            0,
            new InformerHealth(() -> unhealthy, clock),
            started::get,
            () -> waiting,
            () -> "metric 1\n");
  }

  @AfterEach
  void stop() {
    server.close();
  }

  @Test
  @DisplayName("An informer reconnecting at every probe for a minute: alive, and it says so")
  void reconnectingIsAlive() {
    unhealthy = Set.of(SNAPSHOTS);
    for (int probe = 0; probe < 4; probe++) {
      HttpResponse<String> healthz = get("/healthz");
      assertThat(healthz.statusCode()).as("probe %d", probe).isEqualTo(200);
      assertThat(healthz.body())
          .isEqualTo("ok; reconnecting: " + SNAPSHOTS + " (since 2026-11-24T10:00:00Z)\n");
      clock.advance(Duration.ofSeconds(20));
    }
    unhealthy = Set.of();
    assertThat(get("/healthz").body()).isEqualTo("ok\n");
  }

  @Test
  @DisplayName("An informer unhealthy at every probe for five minutes fails liveness")
  void lastingIsNotAlive() {
    unhealthy = Set.of(SNAPSHOTS);
    get("/healthz");
    clock.advance(InformerHealth.GRACE.minusSeconds(1));
    assertThat(get("/healthz").statusCode()).isEqualTo(200);
    clock.advance(Duration.ofSeconds(1));
    HttpResponse<String> failed = get("/healthz");
    assertThat(failed.statusCode()).isEqualTo(503);
    assertThat(failed.body())
        .isEqualTo(
            "informers unhealthy for more than 5 minutes: "
                + SNAPSHOTS
                + " (since 2026-11-24T10:00:00Z)\n");
  }

  @Test
  @DisplayName("An informer healthy again in between starts its five minutes afresh")
  void recoveryResetsTheClock() {
    unhealthy = Set.of(SNAPSHOTS);
    get("/healthz");
    clock.advance(Duration.ofMinutes(4));
    unhealthy = Set.of();
    get("/healthz");
    unhealthy = Set.of(SNAPSHOTS);
    clock.advance(Duration.ofMinutes(4));
    assertThat(get("/healthz").statusCode()).isEqualTo(200);
  }

  @Test
  @DisplayName("Readiness follows the operator's start; metrics are served as they are")
  void readinessAndMetrics() {
    started.set(false);
    assertThat(get("/readyz").statusCode()).isEqualTo(503);
    started.set(true);
    assertThat(get("/readyz").statusCode()).isEqualTo(200);
    assertThat(get("/metrics").body()).isEqualTo("metric 1\n");
  }

  @Test
  @DisplayName("Ready with a CRD missing, saying what waits for it")
  void readyWithAMissingCrd() {
    waiting = Optional.of("CRD volumemoves.thinvol.io is not installed, so VolumeMoves wait");
    HttpResponse<String> readyz = get("/readyz");
    assertThat(readyz.statusCode()).isEqualTo(200);
    assertThat(readyz.body())
        .isEqualTo("ok; CRD volumemoves.thinvol.io is not installed, so VolumeMoves wait\n");
  }

  private HttpResponse<String> get(String path) {
    try {
      return HttpClient.newHttpClient()
          .send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
    } catch (IOException | InterruptedException e) {
      throw new AssertionError("GET " + path, e);
    }
  }
}
