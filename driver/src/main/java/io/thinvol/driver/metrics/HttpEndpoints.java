package io.thinvol.driver.metrics;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code /healthz} (the process serves), {@code /readyz} (its data dir is usable) and {@code
 * /metrics}. Read-only: nothing here can change a volume, so it needs no authentication.
 */
public final class HttpEndpoints implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(HttpEndpoints.class);

  private final HttpServer server;

  private HttpEndpoints(HttpServer server) {
    this.server = server;
  }

  /**
   * @param readiness empty when ready, else why not
   */
  public static HttpEndpoints start(
      int port, BooleanSupplier alive, Supplier<String> readiness, Metrics metrics)
      throws IOException {
    HttpServer server = HttpServer.create(new InetSocketAddress(port), 16);
    server.setExecutor(
        Executors.newSingleThreadExecutor(
            runnable -> {
              Thread thread = new Thread(runnable, "http-endpoints");
              thread.setDaemon(true);
              return thread;
            }));
    server.createContext(
        "/healthz",
        exchange ->
            reply(
                exchange,
                alive.getAsBoolean() ? 200 : 503,
                alive.getAsBoolean() ? "ok\n" : "not serving\n"));
    server.createContext(
        "/readyz",
        exchange -> {
          String problem = readiness.get();
          reply(
              exchange, problem.isEmpty() ? 200 : 503, problem.isEmpty() ? "ok\n" : problem + "\n");
        });
    server.createContext("/metrics", exchange -> reply(exchange, 200, metrics.scrape()));
    server.start();
    log.info(
        "health and metrics on http://:{}/(healthz|readyz|metrics)", server.getAddress().getPort());
    return new HttpEndpoints(server);
  }

  public int port() {
    return server.getAddress().getPort();
  }

  private static void reply(HttpExchange exchange, int status, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
    exchange.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
