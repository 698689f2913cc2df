package io.thinvol.operator.health;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * The operator's HTTP endpoints for the kubelet and Prometheus. {@code /healthz} (liveness) fails
 * only when an informer has stopped working for good ({@link InformerHealth}); {@code /readyz}
 * (readiness) is ready once the operator has started (its informers synced; a standby replica is
 * ready too), and says what waits for a CRD the cluster lacks (the rest of the operator works, so
 * it is ready all the same); {@code /metrics} is Prometheus text.
 */
public final class HealthServer implements AutoCloseable {

  private final HttpServer http;

  private HealthServer(HttpServer http) {
    this.http = http;
  }

  /**
   * @param port 0 picks a free port
   * @param waiting what waits for a missing CRD, and how to install it
   */
  public static HealthServer start(
      int port,
      InformerHealth informers,
      BooleanSupplier started,
      Supplier<Optional<String>> waiting,
      Supplier<String> metrics)
      throws IOException {
    HttpServer http = HttpServer.create(new InetSocketAddress(port), 8);
    http.createContext(
        "/healthz",
        exchange -> {
          InformerHealth.Verdict verdict = informers.check();
          reply(exchange, verdict.alive() ? 200 : 503, verdict.text());
        });
    http.createContext(
        "/readyz",
        exchange -> {
          boolean ready = started.getAsBoolean();
          String detail = waiting.get().map(text -> "; " + text).orElse("");
          reply(exchange, ready ? 200 : 503, (ready ? "ok" : "starting") + detail + "\n");
        });
    http.createContext("/metrics", exchange -> reply(exchange, 200, metrics.get()));
    http.start();
    return new HealthServer(http);
  }

  public int port() {
    return http.getAddress().getPort();
  }

  private static void reply(HttpExchange exchange, int status, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  @Override
  public void close() {
    http.stop(0);
  }
}
