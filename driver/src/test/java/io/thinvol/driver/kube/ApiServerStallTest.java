package io.thinvol.driver.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * An API server that sends an answer's status line and headers, then stops in the middle of its
 * body: the request fails within the client's timeout instead of holding its thread (a TokenReview
 * a call to the driver waits for, a look-up of a peer) for ever.
 */
class ApiServerStallTest {

  private static final Duration TIMEOUT = Duration.ofSeconds(1);

  private final CountDownLatch released = new CountDownLatch(1);
  private HttpServer server;
  private ApiServer api;

  @BeforeEach
  void start() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.setExecutor(java.util.concurrent.Executors.newCachedThreadPool());
    server.createContext(
        "/apis/authentication.k8s.io/v1/tokenreviews",
        exchange -> {
          exchange.getRequestBody().readAllBytes();
          exchange.getResponseHeaders().add("Content-Type", "application/json");
          exchange.sendResponseHeaders(201, 0); // chunked: the body is still to come
          OutputStream out = exchange.getResponseBody();
          out.write("{\"kind\":\"TokenRev".getBytes(StandardCharsets.UTF_8));
          out.flush();
          try {
            released.await(); // the rest never comes while the test runs
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          exchange.close();
        });
    server.start();
    api =
        ApiServer.at(
            URI.create("http://127.0.0.1:" + server.getAddress().getPort()), "token", TIMEOUT);
  }

  @AfterEach
  void stop() {
    released.countDown();
    server.stop(0);
  }

  @Test
  void anAnswerWhoseBodyStopsFailsWithinTheTimeout() {
    IllegalStateException failed =
        assertTimeoutPreemptively(
            Duration.ofSeconds(30),
            () ->
                catchThrowableOfType(
                    () -> api.post("/apis/authentication.k8s.io/v1/tokenreviews", Map.of()),
                    IllegalStateException.class));
    assertThat(failed)
        .hasMessageContaining("POST /apis/authentication.k8s.io/v1/tokenreviews")
        .hasMessageContaining("no complete answer in 1000 ms");
  }
}
