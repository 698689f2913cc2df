package io.thinvol.operator;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.authentication.TokenReview;
import io.fabric8.kubernetes.api.model.authentication.TokenReviewStatus;
import io.fabric8.kubernetes.api.model.authentication.UserInfo;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.thinvol.addons.ClusterFixtures;
import io.thinvol.addons.call.ProjectedToken;
import io.thinvol.api.BackendNames;
import io.thinvol.driver.client.Capabilities;
import io.thinvol.driver.client.CsiClient;
import io.thinvol.driver.host.FileStats;
import io.thinvol.driver.host.HostCleanup;
import io.thinvol.driver.host.ProcessCommandRunner;
import io.thinvol.driver.preflight.DataFiles;
import io.thinvol.driver.store.DataLayout;
import io.thinvol.testing.PlayedControllers;
import java.io.IOException;
import java.net.HttpURLConnection;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real driver process on this host serving one staged 1 GiB ext4 volume, and the objects a
 * cluster holds for it (PV, bound PVC {@code apps/data}, the driver pod at 127.0.0.1). The driver
 * uses the certificate the operator generated and checks tokens with TokenReviews the mock server
 * answers. Closing unstages and deletes the volume, stops the driver and releases every mount and
 * loop device under its directory.
 */
final class DriverOnHost implements AutoCloseable {

  /** Shaped like the operator's projected token (the driver screens it before any review). */
  static final String OPERATOR_TOKEN = projectedToken();

  static final String NODE = "node-a";
  static final String CLAIM_NAMESPACE = "apps";
  static final String CLAIM = "data";

  /** System property: JVM flags for the driver process (none by default). */
  static final String JVM_FLAGS = "thinvol.driver.jvm-flags";

  private final Path root;
  private final List<AutoCloseable> closing = new ArrayList<>();
  private CsiClient csi;
  private String volumeId;
  private Path staging;
  private final FileStats stats = new FileStats(new ProcessCommandRunner());

  private DriverOnHost(Path root) {
    this.root = root;
  }

  /** Answers TokenReviews: the operator's token is its ServiceAccount, any other is invalid. */
  static AtomicInteger answerTokenReviews(KubernetesMockServer server, String namespace) {
    AtomicInteger reviews = new AtomicInteger();
    server
        .expect()
        .post()
        .withPath("/apis/authentication.k8s.io/v1/tokenreviews")
        .andReply(
            HttpURLConnection.HTTP_CREATED,
            request -> review(request.getBody().readUtf8(), namespace, reviews))
        .always();
    return reviews;
  }

  /** The node the driver plays, and the namespace of the claim. */
  static void prepareCluster(KubernetesClient client) {
    client
        .resource(new NodeBuilder().withNewMetadata().withName(NODE).endMetadata().build())
        .create();
    client
        .namespaces()
        .resource(
            new NamespaceBuilder()
                .withNewMetadata()
                .withName(CLAIM_NAMESPACE)
                .endMetadata()
                .build())
        .create();
  }

  /**
   * @param tls the backend's CSI-Addons Secret, as the operator made it
   */
  static DriverOnHost start(KubernetesClient client, String namespace, String backend, Secret tls)
      throws Exception {
    DriverOnHost host = new DriverOnHost(Files.createTempDirectory("thinvol-e2e-"));
    try {
      host.startDriver(client, namespace, backend, tls);
      return host;
    } catch (Exception e) {
      host.close();
      throw e;
    }
  }

  private void startDriver(KubernetesClient client, String namespace, String backend, Secret tls)
      throws IOException, InterruptedException {
    // as the kubelet mounts the Secret: its data (a server stores stringData only there)
    for (String key : List.of("tls.crt", "tls.key")) {
      Files.write(root.resolve(key), java.util.Base64.getDecoder().decode(tls.getData().get(key)));
    }
    int port;
    try (ServerSocket free = new ServerSocket(0)) {
      port = free.getLocalPort();
    }
    List<String> commandLine = new ArrayList<>();
    commandLine.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    // a benchmark runs the driver with the image's JVM flags, as it ships
    String flags = System.getProperty(JVM_FLAGS, "").strip();
    if (!flags.isEmpty()) {
      commandLine.addAll(List.of(flags.split("\\s+")));
    }
    commandLine.addAll(
        List.of(
            "-cp",
            System.getProperty("java.class.path"),
            "io.thinvol.driver.cli.ThinvolCommand",
            "driver",
            "--csi-endpoint=unix://" + root.resolve("csi.sock"),
            "--driver-name=" + BackendNames.driver(backend),
            "--node-id=" + NODE,
            "--data-dir=" + root.resolve("data"),
            "--addons-endpoint=unix://" + root.resolve("addons.sock"),
            "--addons-port=" + port,
            "--addons-tls-cert=" + root.resolve("tls.crt"),
            "--addons-tls-key=" + root.resolve("tls.key"),
            "--addons-allowed-serviceaccounts=" + namespace + ":thinvol-operator",
            "--http-port=0"));
    ProcessBuilder command =
        new ProcessBuilder(commandLine)
            .redirectErrorStream(true)
            .redirectOutput(root.resolve("driver.log").toFile());
    // outside a Pod the driver calls the API server it is given (for its TokenReviews)
    command.environment().put("THINVOL_KUBE_API_URL", client.getMasterUrl().toString());
    Process process = command.start();
    closing.add(
        () -> {
          process.destroy();
          if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
          }
        });
    // a JVM starting on a machine shared with builds can take more than 30 s
    long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
    while (!Files.exists(root.resolve("csi.sock"))) {
      if (!process.isAlive() || System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "driver did not start: " + Files.readString(root.resolve("driver.log")));
      }
      Thread.sleep(50);
    }
    csi = new CsiClient(root.resolve("csi.sock"));
    closing.add(csi);

    // The volume, as the provisioner and kubelet would make it.
    volumeId = csi.createVolume("pvc-e2e", 1L << 30, Capabilities.mount("ext4"), null);
    closing.add(() -> csi.deleteVolume(volumeId));
    staging = root.resolve("staging");
    Files.createDirectories(staging);
    csi.stage(volumeId, staging, Capabilities.mount("ext4"));
    closing.add(() -> csi.unstage(volumeId, staging));

    // What the cluster knows about it.
    String driver = BackendNames.driver(backend);
    PlayedControllers.createWithStatus(
        client, ClusterFixtures.volume("pv-e2e", driver, volumeId, NODE, CLAIM_NAMESPACE, CLAIM));
    PlayedControllers.createWithStatus(
        client, ClusterFixtures.boundClaim(CLAIM_NAMESPACE, CLAIM, backend, "pv-e2e"));
    PlayedControllers.createWithStatus(
        client, ClusterFixtures.driverPod(namespace, backend, NODE, "127.0.0.1", port));
  }

  /** Writes {@code bytes} of random data into the volume, deletes them and flushes. */
  void writeAndDelete(long bytes) throws IOException {
    Path file = staging.resolve("scratch.bin");
    DataFiles.writeRandom(file, bytes);
    Files.delete(file);
    new ProcessCommandRunner()
        .run(Duration.ofMinutes(1), List.of("sync", "-f", staging.toString()));
  }

  /** Bytes the volume's image file takes on the host's disk. */
  long imageBytes() {
    return stats.allocatedBytes(new DataLayout(root.resolve("data")).volumeImage(volumeId));
  }

  Path staging() {
    return staging;
  }

  /** The driver's CSI endpoint, as the sidecars reach it. */
  CsiClient csi() {
    return csi;
  }

  /** The staged volume's id (the PersistentVolume's {@code volumeHandle}). */
  String volumeId() {
    return volumeId;
  }

  /** A fresh directory under the host's, released with it. */
  Path directory(String name) throws IOException {
    return Files.createDirectories(root.resolve(name));
  }

  /** Undone before the volume and driver are, in reverse order of registration. */
  void onRelease(AutoCloseable undo) {
    closing.add(undo);
  }

  /** Stops everything; returns the mounts and loop devices that had to be released. */
  List<String> release() throws Exception {
    Collections.reverse(closing);
    Exception first = null;
    for (AutoCloseable c : closing) {
      try {
        c.close();
      } catch (Exception e) {
        first = first == null ? e : first;
      }
    }
    closing.clear();
    List<String> leaks = HostCleanup.release(root);
    if (first != null) {
      throw first;
    }
    return leaks;
  }

  @Override
  public void close() throws Exception {
    release();
  }

  private static String review(String body, String namespace, AtomicInteger reviews) {
    TokenReview request = Serialization.unmarshal(body, TokenReview.class);
    TokenReviewStatus status = new TokenReviewStatus();
    List<String> audiences = request.getSpec().getAudiences();
    if (OPERATOR_TOKEN.equals(request.getSpec().getToken())
        && audiences != null
        && audiences.contains(ProjectedToken.DEFAULT_AUDIENCE)) {
      reviews.incrementAndGet();
      status.setAuthenticated(true);
      status.setAudiences(List.of(ProjectedToken.DEFAULT_AUDIENCE));
      UserInfo user = new UserInfo();
      user.setUsername("system:serviceaccount:" + namespace + ":thinvol-operator");
      status.setUser(user);
    } else {
      status.setAuthenticated(false);
      status.setError("invalid bearer token");
    }
    request.setStatus(status);
    return Serialization.asJson(request);
  }

  private static String projectedToken() {
    Base64.Encoder base64url = Base64.getUrlEncoder().withoutPadding();
    String header = "{\"alg\":\"RS256\",\"kid\":\"e2e\"}";
    String payload =
        "{\"aud\":[\""
            + ProjectedToken.DEFAULT_AUDIENCE
            + "\"],\"exp\":"
            + Instant.now().plus(Duration.ofHours(6)).getEpochSecond()
            + ",\"sub\":\"system:serviceaccount:thinvol-system:thinvol-operator\"}";
    return base64url.encodeToString(header.getBytes(StandardCharsets.UTF_8))
        + "."
        + base64url.encodeToString(payload.getBytes(StandardCharsets.UTF_8))
        + "."
        + base64url.encodeToString("e2e-signature".getBytes(StandardCharsets.UTF_8));
  }
}
