package io.thinvol.e2e.support;

import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real Prometheus (Debian's {@code prometheus} package) run as a child process of the suite: its
 * own storage in a temporary folder, a free port on the loopback, a static scrape configuration and
 * rule files. Closing it kills the process and removes the folder.
 */
public final class Prometheus implements AutoCloseable {

  /** Scrapes and rule evaluations this often: a fill shows within seconds, not minutes. */
  private static final Duration INTERVAL = Duration.ofSeconds(5);

  private static final Logger log = LoggerFactory.getLogger(Prometheus.class);
  private static final String PROGRAM = "prometheus";
  private static final Duration READY_LIMIT = Duration.ofSeconds(60);
  private static final Duration STOP_LIMIT = Duration.ofSeconds(10);
  private static final Duration REQUEST_LIMIT = Duration.ofSeconds(10);

  /** One scrape job and its targets. */
  public record Job(String name, List<Target> targets) {}

  /** A target's {@code host:port} and the labels every series scraped from it gets. */
  public record Target(String address, Map<String, String> labels) {}

  private final Path home;
  private final Process process;
  private final URI api;
  private final HttpClient http = HttpClient.newHttpClient();
  private final KubernetesSerialization json = new KubernetesSerialization();
  // A JVM ended by a signal (a killed build) runs no @AfterAll: Prometheus must not outlive it.
  private final Thread onExit = new Thread(this::close, "prometheus-stop");

  private Prometheus(Path home, Process process, int port) {
    this.home = home;
    this.process = process;
    this.api = URI.create("http://127.0.0.1:" + port + "/");
    Runtime.getRuntime().addShutdownHook(onExit);
  }

  /** Whether the program is installed (Debian package {@code prometheus}). */
  public static boolean installed() {
    return Stream.of(System.getenv("PATH").split(":"))
        .anyMatch(dir -> Files.isExecutable(Path.of(dir, PROGRAM)));
  }

  /**
   * Starts Prometheus scraping {@code jobs} and evaluating the rule {@code groups}, and waits until
   * it is ready; its output goes to {@code logFile}.
   */
  public static Prometheus start(List<Job> jobs, List<Map<String, Object>> groups, Path logFile) {
    KubernetesSerialization json = new KubernetesSerialization();
    Path home = null;
    Process process = null;
    boolean ready = false;
    try {
      home = Files.createTempDirectory("thinvol-e2e-prometheus");
      // JSON is YAML: both files are written as Prometheus reads them.
      Path rules =
          Files.writeString(home.resolve("rules.yml"), json.asJson(Map.of("groups", groups)));
      Path config =
          Files.writeString(home.resolve("prometheus.yml"), json.asJson(config(jobs, rules)));
      int port = freePort();
      Files.createDirectories(logFile.getParent());
      process =
          new ProcessBuilder(
                  PROGRAM,
                  "--config.file=" + config,
                  "--storage.tsdb.path=" + home.resolve("data"),
                  "--web.listen-address=127.0.0.1:" + port)
              .redirectErrorStream(true)
              .redirectOutput(logFile.toFile())
              .start();
      Prometheus prometheus = new Prometheus(home, process, port);
      prometheus.awaitReady(logFile);
      ready = true;
      return prometheus;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      if (!ready) {
        stop(process);
        remove(home);
      }
    }
  }

  private static Map<String, Object> config(List<Job> jobs, Path rules) {
    String interval = INTERVAL.toSeconds() + "s";
    return Map.of(
        "global", Map.of("scrape_interval", interval, "evaluation_interval", interval),
        "rule_files", List.of(rules.toString()),
        "scrape_configs",
            jobs.stream()
                .map(
                    job ->
                        Map.of(
                            "job_name",
                            job.name(),
                            "static_configs",
                            job.targets().stream()
                                .map(
                                    t ->
                                        Map.of(
                                            "targets", List.of(t.address()), "labels", t.labels()))
                                .toList()))
                .toList());
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }

  private void awaitReady(Path logFile) {
    Waits.untilTrue(
        "Prometheus to be ready (its log: " + logFile + ")",
        READY_LIMIT,
        () -> {
          if (!process.isAlive()) {
            throw new AssertionError(
                "prometheus exited (" + process.exitValue() + "); its log: " + logFile);
          }
          return get("-/ready").statusCode() == 200;
        });
  }

  /**
   * The scrape targets, each with its {@code labels}, {@code health} ("up", "down", "unknown") and
   * {@code lastError}.
   */
  public List<Map<String, Object>> targets() {
    return list(data("api/v1/targets?state=active"), "activeTargets");
  }

  /** An instant query's result: each series' {@code metric} (labels) and {@code value}. */
  public List<Map<String, Object>> query(String expression) {
    return list(
        data("api/v1/query?query=" + URLEncoder.encode(expression, StandardCharsets.UTF_8)),
        "result");
  }

  /** The active alerts: {@code labels}, {@code state} ("pending", "firing"), {@code activeAt}. */
  public List<Map<String, Object>> alerts() {
    return list(data("api/v1/alerts"), "alerts");
  }

  @SuppressWarnings("unchecked")
  private static List<Map<String, Object>> list(Map<String, Object> data, String key) {
    return Optional.ofNullable((List<Map<String, Object>>) data.get(key)).orElse(List.of());
  }

  @SuppressWarnings("unchecked")
  private Map<String, Object> data(String path) {
    HttpResponse<String> response = get(path);
    Map<String, Object> body = json.unmarshal(response.body(), Map.class);
    if (response.statusCode() != 200 || !"success".equals(body.get("status"))) {
      throw new AssertionError(
          "Prometheus answered " + response.statusCode() + " to " + path + ": " + response.body());
    }
    return (Map<String, Object>) body.get("data");
  }

  private HttpResponse<String> get(String path) {
    try {
      return http.send(
          HttpRequest.newBuilder(api.resolve(path)).timeout(REQUEST_LIMIT).build(),
          HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  @Override
  public void close() {
    stop(process);
    remove(home);
    if (Thread.currentThread() != onExit) {
      Runtime.getRuntime().removeShutdownHook(onExit);
    }
  }

  private static void stop(Process process) {
    if (process == null) {
      return;
    }
    process.destroy();
    try {
      if (!process.waitFor(STOP_LIMIT.toSeconds(), TimeUnit.SECONDS)) {
        log.warn("prometheus did not stop within {} s: killing it", STOP_LIMIT.toSeconds());
        process.destroyForcibly().waitFor(STOP_LIMIT.toSeconds(), TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
  }

  private static void remove(Path home) {
    if (home == null) {
      return;
    }
    try {
      Host.deleteTree(home);
    } catch (UncheckedIOException e) {
      log.warn("cannot remove Prometheus' folder {}: {}", home, e.toString());
    }
  }
}
