package io.thinvol.driver.kube;

import com.fasterxml.jackson.jr.ob.JSON;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * The few API calls the driver makes (a TokenReview and the cluster's token signing keys, a patch
 * of its Pod's status, the lookups that find the node holding a volume), over the JDK's HTTP client
 * as the Pod's ServiceAccount. A full Kubernetes client cost the driver, which runs on every node,
 * about 8 MiB more and a thousand classes for these requests.
 */
public final class ApiServer {

  private static final Path SERVICE_ACCOUNT =
      Path.of("/var/run/secrets/kubernetes.io/serviceaccount");
  private static final Duration TIMEOUT = Duration.ofSeconds(10);
  static final String URL_VARIABLE = "THINVOL_KUBE_API_URL";
  static final String TOKEN_FILE_VARIABLE = "THINVOL_KUBE_TOKEN_FILE";

  private final URI base;
  private final Supplier<String> token;
  private final HttpClient http;
  private final Duration timeout;

  private ApiServer(URI base, Supplier<String> token, HttpClient http) {
    this(base, token, http, TIMEOUT);
  }

  private ApiServer(URI base, Supplier<String> token, HttpClient http, Duration timeout) {
    this.base = base;
    this.token = token;
    this.http = http;
    this.timeout = timeout;
  }

  /**
   * The API server a Pod reaches: the address the kubelet puts in its environment, the cluster's CA
   * and the ServiceAccount token it mounts. The token file is read at every request: the kubelet
   * replaces it before it expires.
   */
  public static ApiServer inCluster() {
    String host = System.getenv("KUBERNETES_SERVICE_HOST");
    String port = System.getenv("KUBERNETES_SERVICE_PORT");
    if (host == null || port == null) {
      throw new IllegalStateException(
          "not running in a Pod: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are unset");
    }
    String authority = host.contains(":") ? "[" + host + "]:" + port : host + ":" + port;
    Path tokenFile = SERVICE_ACCOUNT.resolve("token");
    return new ApiServer(
        URI.create("https://" + authority),
        () -> read(tokenFile),
        HttpClient.newBuilder()
            .sslContext(trusting(SERVICE_ACCOUNT.resolve("ca.crt")))
            .connectTimeout(TIMEOUT)
            .build());
  }

  /**
   * In a Pod, the in-cluster API server; outside one (a driver run on a host by hand, the tests'
   * driver processes) the API server at {@value #URL_VARIABLE}, with the token in the file named by
   * {@value #TOKEN_FILE_VARIABLE} (none: no Authorization header).
   */
  public static ApiServer fromEnvironment() {
    String url = System.getenv(URL_VARIABLE);
    if (url == null || url.isBlank()) {
      return inCluster();
    }
    String tokenFile = System.getenv(TOKEN_FILE_VARIABLE);
    return new ApiServer(
        URI.create(url.strip()),
        () -> tokenFile == null || tokenFile.isBlank() ? "" : read(Path.of(tokenFile)),
        HttpClient.newBuilder().connectTimeout(TIMEOUT).build());
  }

  /** An API server at {@code base} (a test's mock server), with a fixed token. */
  public static ApiServer at(URI base, String token) {
    return at(base, token, TIMEOUT);
  }

  /** As above, every request answered in full within {@code timeout} or failed. */
  public static ApiServer at(URI base, String token, Duration timeout) {
    return new ApiServer(
        base, () -> token, HttpClient.newBuilder().connectTimeout(timeout).build(), timeout);
  }

  /** GETs {@code path} (with its query, already encoded) and returns the answer. */
  public JsonTree get(String path) {
    return send(request(path).GET());
  }

  /**
   * GETs {@code path} accepting the media types {@code accept}: the API server answers 406 to an
   * Accept its route does not produce (the key set is {@code application/jwk-set+json}).
   */
  public JsonTree get(String path, String accept) {
    return send(request(path).setHeader("Accept", accept).GET());
  }

  /** POSTs {@code body} as JSON and returns the answer. */
  public JsonTree post(String path, Object body) {
    return send(
        request(path)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofByteArray(json(body))));
  }

  /** A strategic-merge patch of {@code path}. */
  public JsonTree strategicMergePatch(String path, Object body) {
    return send(
        request(path)
            .header("Content-Type", "application/strategic-merge-patch+json")
            .method("PATCH", HttpRequest.BodyPublishers.ofByteArray(json(body))));
  }

  private HttpRequest.Builder request(String path) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(base.resolve(path))
            .timeout(timeout)
            .header("Accept", "application/json");
    String bearer = token.get();
    return bearer.isEmpty() ? request : request.header("Authorization", "Bearer " + bearer);
  }

  private JsonTree send(HttpRequest.Builder request) {
    HttpRequest built = request.build();
    String what = built.method() + " " + built.uri().getPath();
    // The whole answer within the timeout: the request's own timeout ends with the headers, and a
    // body that stops coming would hold the caller (a call to the driver waiting for its
    // TokenReview, a copy looking up its peer) for ever.
    CompletableFuture<HttpResponse<byte[]>> exchange =
        http.sendAsync(built, HttpResponse.BodyHandlers.ofByteArray());
    HttpResponse<byte[]> response;
    try {
      response = exchange.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      exchange.cancel(true);
      throw new IllegalStateException(
          what + ": no complete answer in " + timeout.toMillis() + " ms");
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      throw new IllegalStateException(
          what + ": " + (cause.getMessage() != null ? cause.getMessage() : cause.toString()),
          cause);
    } catch (InterruptedException e) {
      exchange.cancel(true);
      Thread.currentThread().interrupt();
      throw new IllegalStateException(what + " interrupted");
    }
    JsonTree answer;
    try {
      answer = JsonTree.parse(response.body());
    } catch (IOException e) {
      answer = null;
    }
    if (response.statusCode() / 100 != 2) {
      // The API server's Status names the reason (e.g. forbidden: the RBAC rule that is missing).
      String message = answer == null ? "" : answer.path("message").asText("");
      throw new IllegalStateException(
          String.format("%s answered %d %s", what, response.statusCode(), message));
    }
    if (answer == null) {
      throw new IllegalStateException(what + " answered no JSON");
    }
    return answer;
  }

  private static byte[] json(Object body) {
    try {
      return JSON.std.asBytes(body);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private static String read(Path file) {
    try {
      return Files.readString(file).strip();
    } catch (IOException e) {
      throw new IllegalStateException("cannot read the ServiceAccount token " + file, e);
    }
  }

  private static SSLContext trusting(Path caFile) {
    try (InputStream in = Files.newInputStream(caFile)) {
      KeyStore trusted = KeyStore.getInstance(KeyStore.getDefaultType());
      trusted.load(null, null);
      int i = 0;
      for (Certificate ca : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
        trusted.setCertificateEntry("ca-" + i++, ca);
      }
      TrustManagerFactory trust =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      trust.init(trusted);
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(null, trust.getTrustManagers(), null);
      return context;
    } catch (IOException | GeneralSecurityException e) {
      throw new IllegalStateException("cannot load the cluster's CA from " + caFile, e);
    }
  }
}
