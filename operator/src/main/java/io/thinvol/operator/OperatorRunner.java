package io.thinvol.operator;

import com.sun.net.httpserver.HttpServer;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.Operator;
import io.javaoperatorsdk.operator.api.config.LeaderElectionConfiguration;
import io.thinvol.api.kube.Events;
import io.thinvol.operator.model.Settings;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The running operator: the StorageBackend reconciler, leader election among replicas, and {@code
 * /healthz} (informers healthy) and {@code /readyz} (started) for the kubelet.
 */
public final class OperatorRunner implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(OperatorRunner.class);
  static final String LEASE = "thinvol-operator";

  private final Operator operator;
  private final HttpServer http;

  private OperatorRunner(Operator operator, HttpServer http) {
    this.operator = operator;
    this.http = http;
  }

  /**
   * @param tuning adjusts the JOSDK configuration (tests turn server-side apply off, which the mock
   *     API server lacks)
   * @param healthPort 0 picks a free port; negative serves none
   */
  public static OperatorRunner start(
      KubernetesClient client,
      Settings settings,
      boolean leaderElection,
      int healthPort,
      Consumer<io.javaoperatorsdk.operator.api.config.ConfigurationServiceOverrider> tuning)
      throws IOException {
    ReconcileMetrics metrics = new ReconcileMetrics();
    Operator operator =
        new Operator(
            overrider -> {
              overrider
                  .withKubernetesClient(client)
                  .withCloseClientOnStop(false)
                  .withMetrics(metrics);
              if (leaderElection) {
                overrider.withLeaderElectionConfiguration(
                    new LeaderElectionConfiguration(LEASE, settings.namespace()));
              }
              tuning.accept(overrider);
            });
    Clock clock = Clock.systemUTC();
    operator.register(
        new StorageBackendReconciler(
            settings, clock, new Events(client, settings.namespace(), clock)));
    operator.start();
    HttpServer http = healthPort < 0 ? null : health(operator, metrics, healthPort);
    log.info(
        "operator started in namespace {} (OpenShift: {}, snapshot API: {})",
        settings.namespace(),
        settings.openShift(),
        settings.snapshotApi());
    return new OperatorRunner(operator, http);
  }

  private static HttpServer health(Operator operator, ReconcileMetrics metrics, int port)
      throws IOException {
    HttpServer http = HttpServer.create(new InetSocketAddress(port), 8);
    http.createContext(
        "/healthz",
        exchange -> {
          boolean healthy = operator.getRuntimeInfo().allEventSourcesAreHealthy();
          reply(exchange, healthy ? 200 : 503, healthy ? "ok\n" : "an informer is unhealthy\n");
        });
    http.createContext(
        "/readyz",
        exchange -> {
          boolean started = operator.getRuntimeInfo().isStarted();
          reply(exchange, started ? 200 : 503, started ? "ok\n" : "starting\n");
        });
    http.createContext("/metrics", exchange -> reply(exchange, 200, metrics.render()));
    http.start();
    return http;
  }

  private static void reply(com.sun.net.httpserver.HttpExchange exchange, int status, String body)
      throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  public int healthPort() {
    return http.getAddress().getPort();
  }

  @Override
  public void close() {
    if (http != null) {
      http.stop(0);
    }
    operator.stop();
  }
}
