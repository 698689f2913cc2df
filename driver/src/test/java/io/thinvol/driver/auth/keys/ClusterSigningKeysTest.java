package io.thinvol.driver.auth.keys;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.sun.net.httpserver.HttpServer;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.thinvol.driver.MutableClock;
import io.thinvol.driver.auth.MockKeySet;
import io.thinvol.driver.auth.ServiceAccountTokens;
import io.thinvol.driver.auth.keys.SigningKeys.Lookup;
import io.thinvol.driver.kube.ApiServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

@EnableKubernetesMockClient(https = false)
class ClusterSigningKeysTest {

  KubernetesMockServer server;

  private final MutableClock clock = new MutableClock(Instant.parse("2026-11-26T09:00:00Z"));
  private final ServiceAccountTokens cluster = new ServiceAccountTokens();
  private final AtomicReference<String> published = new AtomicReference<>(cluster.jwks());
  private final ListAppender<ILoggingEvent> logged = new ListAppender<>();
  private final Logger logger = (Logger) LoggerFactory.getLogger(ClusterSigningKeys.class);
  private MockKeySet keySet;
  private ClusterSigningKeys keys;

  /** Each read of the key set waits until this opens. */
  private volatile CountDownLatch gate = new CountDownLatch(0);

  @BeforeEach
  void start() {
    keySet =
        MockKeySet.on(
            server,
            () -> {
              try {
                gate.await(1, TimeUnit.MINUTES);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              return published.get();
            });
    keys = new ClusterSigningKeys(this::api, clock);
    logged.start();
    logger.addAppender(logged);
  }

  @AfterEach
  void stop() {
    logger.detachAppender(logged);
  }

  private ApiServer api() {
    return ApiServer.at(URI.create(server.url("/")), "the-driver's-own-token");
  }

  private List<String> logs(Level level) {
    return logged.list.stream()
        .filter(e -> e.getLevel() == level)
        .map(ILoggingEvent::getFormattedMessage)
        .toList();
  }

  @Test
  @DisplayName("Read on the first lookup, and again for an unknown key id at most once a minute")
  void unknownKeyIdsReadAtMostOnceAMinute() {
    assertThat(keys.count()).isZero();
    assertThat(keySet.requests()).as("nothing read before a token arrives").isZero();
    assertThat(keys.find(cluster.keyId())).isInstanceOf(Lookup.Found.class);
    assertThat(keys.find(cluster.keyId())).isInstanceOf(Lookup.Found.class);
    assertThat(keySet.requests()).isEqualTo(1);
    assertThat(keys.count()).isEqualTo(1);

    for (int minute = 1; minute <= 3; minute++) {
      for (int i = 0; i < 100; i++) {
        assertThat(keys.find("made-up-" + i)).isEqualTo(new Lookup.Unknown());
      }
      assertThat(keySet.requests()).as("reads by minute " + minute).isEqualTo(minute);
      clock.advance(Duration.ofSeconds(59));
      assertThat(keys.find("made-up")).isEqualTo(new Lookup.Unknown());
      assertThat(keySet.requests()).as("not 59 s after a read").isEqualTo(minute);
      clock.advance(Duration.ofSeconds(1));
    }
    assertThat(keys.find(cluster.keyId()))
        .as("a known id reads nothing")
        .isInstanceOf(Lookup.Found.class);
    assertThat(keySet.requests()).isEqualTo(3);
    assertThat(logs(Level.INFO)).hasSize(1).first().asString().contains(cluster.keyId());
  }

  @Test
  @DisplayName("A call that needs the keys while they are being read waits for that read")
  void callsDuringAReadShareIt() throws Exception {
    gate = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      Future<Lookup> first = pool.submit(() -> keys.find(cluster.keyId()));
      while (keySet.requests() == 0) {
        Thread.onSpinWait();
      }
      Future<Lookup> second = pool.submit(() -> keys.find(cluster.keyId()));
      assertThatThrownBy(() -> second.get(500, TimeUnit.MILLISECONDS))
          .as("waiting for the read under way")
          .isInstanceOf(TimeoutException.class);
      gate.countDown();
      assertThat(first.get(1, TimeUnit.MINUTES)).isInstanceOf(Lookup.Found.class);
      assertThat(second.get(1, TimeUnit.MINUTES)).isInstanceOf(Lookup.Found.class);
      assertThat(keySet.requests()).isEqualTo(1);
    } finally {
      gate.countDown();
      pool.shutdownNow();
    }
  }

  @Test
  @DisplayName("A key the cluster starts signing with is found at the first token naming it")
  void rotatedKeyIsFound() {
    keys.find(cluster.keyId());
    ServiceAccountTokens rotated = new ServiceAccountTokens(JwsAlgorithm.ES256);
    published.set(
        cluster.jwks().replace("}]}", "}," + rotated.jwks().substring("{\"keys\":[".length())));
    clock.advance(Duration.ofMinutes(5));
    assertThat(keys.find(rotated.keyId())).isInstanceOf(Lookup.Found.class);
    assertThat(keys.find(cluster.keyId())).isInstanceOf(Lookup.Found.class);
    assertThat(keys.count()).isEqualTo(2);
  }

  @Test
  @DisplayName(
      "Keys that cannot be read (403) are said so once, looked for again once a minute, and said"
          + " so again once readable")
  void unreadableKeysAreLoggedOnce() {
    published.set(null);
    Lookup first = keys.find(cluster.keyId());
    assertThat(first).isInstanceOf(Lookup.Unpublished.class);
    assertThat(((Lookup.Unpublished) first).reason()).contains("403").contains("forbidden");
    for (int minute = 0; minute < 3; minute++) {
      for (int i = 0; i < 50; i++) {
        assertThat(keys.find("kid-" + i)).isInstanceOf(Lookup.Unpublished.class);
      }
      clock.advance(Duration.ofMinutes(1));
    }
    assertThat(keySet.requests()).as("once at first, then once a minute").isEqualTo(3);
    assertThat(logs(Level.WARN))
        .hasSize(1)
        .first()
        .asString()
        .contains("403")
        .contains("TokenReview");
    assertThat(keys.count()).isZero();

    published.set(cluster.jwks());
    assertThat(keys.find(cluster.keyId())).isInstanceOf(Lookup.Found.class);
    assertThat(logs(Level.INFO)).hasSize(1);
  }

  @Test
  @DisplayName("Keys read before stay usable while a later read fails")
  void keysSurviveAFailedRead() {
    keys.find(cluster.keyId());
    published.set(null);
    clock.advance(Duration.ofMinutes(1));
    assertThat(keys.find("new-kid")).isInstanceOf(Lookup.Unpublished.class);
    assertThat(keys.find(cluster.keyId())).isInstanceOf(Lookup.Found.class);
  }

  @Test
  @DisplayName(
      "No key set (404), an unreachable API server, no Pod, or no usable key: each unpublished")
  void otherWaysOfNoKeys() throws IOException {
    HttpServer notFound = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    notFound.createContext(
        "/",
        exchange -> {
          exchange.sendResponseHeaders(404, -1);
          exchange.close();
        });
    notFound.start();
    try {
      URI base = URI.create("http://127.0.0.1:" + notFound.getAddress().getPort() + "/");
      Lookup lookup = new ClusterSigningKeys(() -> ApiServer.at(base, ""), clock).find("k");
      assertThat(((Lookup.Unpublished) lookup).reason()).contains("404");
    } finally {
      notFound.stop(0);
    }

    ClusterSigningKeys unreachable =
        new ClusterSigningKeys(() -> ApiServer.at(URI.create("http://127.0.0.1:1/"), ""), clock);
    assertThat(unreachable.find("k")).isInstanceOf(Lookup.Unpublished.class);

    ClusterSigningKeys noPod =
        new ClusterSigningKeys(
            () -> {
              throw new IllegalStateException("not running in a Pod");
            },
            clock);
    assertThat(noPod.find("k")).isEqualTo(new Lookup.Unpublished("not running in a Pod"));

    published.set("{\"kind\":\"List\",\"items\":[]}");
    assertThat(((Lookup.Unpublished) keys.find("k")).reason())
        .isEqualTo("GET /openid/v1/jwks: the answer is not a JSON Web Key Set (no \"keys\" array)");
    clock.advance(Duration.ofMinutes(1));
    published.set("{\"keys\":[]}");
    assertThat(((Lookup.Unpublished) keys.find("k")).reason())
        .isEqualTo("GET /openid/v1/jwks: no key this driver can verify");
  }

  @Test
  @DisplayName(
      "The key set is asked for with an Accept its route produces: 'application/json' alone is"
          + " refused with 406, as by the API server")
  void acceptsTheKeySetMediaType() {
    assertThatThrownBy(() -> api().get(ClusterSigningKeys.JWKS_PATH)).hasMessageContaining("406");
    assertThat(keys.find(cluster.keyId())).isInstanceOf(Lookup.Found.class);
  }
}
