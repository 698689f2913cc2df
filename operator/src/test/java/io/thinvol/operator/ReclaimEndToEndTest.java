package io.thinvol.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.authentication.TokenReview;
import io.fabric8.kubernetes.api.model.authentication.TokenReviewStatus;
import io.fabric8.kubernetes.api.model.authentication.UserInfo;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.thinvol.addons.ClusterFixtures;
import io.thinvol.addons.call.GrpcReclaimCaller;
import io.thinvol.addons.call.ReclaimCaller;
import io.thinvol.api.BackendNames;
import io.thinvol.api.v1alpha1.ReclaimSpaceJob;
import io.thinvol.api.v1alpha1.ReclaimSpaceJobSpec;
import io.thinvol.api.v1alpha1.ReclaimTarget;
import io.thinvol.driver.client.Capabilities;
import io.thinvol.driver.client.CsiClient;
import io.thinvol.driver.host.FileStats;
import io.thinvol.driver.host.HostCleanup;
import io.thinvol.driver.host.ProcessCommandRunner;
import io.thinvol.driver.preflight.DataFiles;
import io.thinvol.driver.store.DataLayout;
import java.io.IOException;
import java.net.HttpURLConnection;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The whole path on this host: the operator (StorageBackend reconciler and addons) against the mock
 * API server, and a real driver process on a loop device. The driver gets the certificate the
 * operator generated, checks the operator's token with a TokenReview answered by the mock server,
 * and trims a volume from which 256 MiB were deleted; the job must report what the image file
 * really gave back.
 */
class ReclaimEndToEndTest extends MockClusterTest {

  private static final String OPERATOR_TOKEN = "operator-token-e2e";
  private static final String NODE = "node-a";
  private static final long MIB = 1L << 20;

  private final AtomicInteger tokenReviews = new AtomicInteger();
  private final List<AutoCloseable> closing = new ArrayList<>();
  private GrpcReclaimCaller caller;
  private Path root;

  @Override
  ReclaimCaller caller() {
    caller = new GrpcReclaimCaller(client, NAMESPACE, () -> OPERATOR_TOKEN);
    return caller;
  }

  @AfterEach
  void releaseHost() throws Exception {
    java.util.Collections.reverse(closing);
    for (AutoCloseable c : closing) {
      c.close();
    }
    caller.close();
    if (root != null) {
      List<String> leaks = HostCleanup.release(root);
      assertThat(leaks).as("mounts or loop devices left behind").isEmpty();
    }
  }

  @Test
  void aJobReportsTheBytesTheImageFileReallyGaveBack() throws Exception {
    server
        .expect()
        .post()
        .withPath("/apis/authentication.k8s.io/v1/tokenreviews")
        .andReply(HttpURLConnection.HTTP_CREATED, request -> review(request.getBody().readUtf8()))
        .always();
    client
        .resource(new NodeBuilder().withNewMetadata().withName(NODE).endMetadata().build())
        .create();
    client
        .namespaces()
        .resource(new NamespaceBuilder().withNewMetadata().withName("apps").endMetadata().build())
        .create();
    apply(
        """
        metadata:
          name: local
        spec:
          reclaimSpace:
            maxConcurrentPerNode: 1
            timeout: 2m
        """);
    Secret tls = namespaced(Secret.class, BackendNames.addonsTlsSecret("local"));

    root = Files.createTempDirectory("thinvol-e2e-");
    Files.writeString(root.resolve("tls.crt"), tls.getStringData().get("tls.crt"));
    Files.writeString(root.resolve("tls.key"), tls.getStringData().get("tls.key"));
    int port;
    try (ServerSocket free = new ServerSocket(0)) {
      port = free.getLocalPort();
    }
    Process driver = startDriver(port);
    CsiClient csi = new CsiClient(root.resolve("csi.sock"));
    closing.add(csi);

    // The volume, as the provisioner and kubelet would make it: created, staged, written.
    String volumeId = csi.createVolume("pvc-e2e", 1L << 30, Capabilities.mount("ext4"), null);
    closing.add(() -> csi.deleteVolume(volumeId));
    Path staging = root.resolve("staging");
    Files.createDirectories(staging);
    csi.stage(volumeId, staging, Capabilities.mount("ext4"));
    closing.add(() -> csi.unstage(volumeId, staging));
    DataFiles.writeRandom(staging.resolve("scratch.bin"), 256 * MIB);
    Files.delete(staging.resolve("scratch.bin"));
    new ProcessCommandRunner()
        .run(Duration.ofMinutes(1), List.of("sync", "-f", staging.toString()));
    Path image = new DataLayout(root.resolve("data")).volumeImage(volumeId);
    FileStats stats = new FileStats(new ProcessCommandRunner());
    long before = stats.allocatedBytes(image);

    // What the cluster knows about it.
    cluster(volumeId, port);
    ReclaimSpaceJob job = new ReclaimSpaceJob();
    job.getMetadata().setName("trim-e2e");
    job.getMetadata().setNamespace("apps");
    ReclaimSpaceJobSpec spec = new ReclaimSpaceJobSpec();
    spec.setTarget(new ReclaimTarget("data"));
    job.setSpec(spec);
    client.resource(job).create();

    ReclaimSpaceJob done =
        await(
            "the job's result",
            () -> {
              ReclaimSpaceJob now =
                  client
                      .resources(ReclaimSpaceJob.class)
                      .inNamespace("apps")
                      .withName("trim-e2e")
                      .get();
              return now.getStatus() != null && now.getStatus().getResult() != null ? now : null;
            });
    long after = stats.allocatedBytes(image);

    assertThat(done.getStatus().getResult())
        .as("result, message: %s", done.getStatus().getMessage())
        .isEqualTo("Succeeded");
    long reported = done.getStatus().getReclaimedSpace().getNumericalAmount().longValueExact();
    long shrank = before - after;
    assertThat(shrank).as("the image gave back most of the 256 MiB").isGreaterThan(240 * MIB);
    assertThat((double) reported)
        .isCloseTo((double) shrank, org.assertj.core.data.Percentage.withPercentage(1));
    assertThat(done.getStatus().getPostUsage().getNumericalAmount().longValueExact())
        .isEqualTo(after);
    assertThat(done.getStatus().getSteps().getNode().getResult()).isEqualTo("Succeeded");
    assertThat(done.getStatus().getConditions())
        .anySatisfy(c -> assertThat(c.getType() + "=" + c.getStatus()).isEqualTo("Succeeded=True"))
        .anySatisfy(c -> assertThat(c.getType() + "=" + c.getStatus()).isEqualTo("Failed=False"))
        .anySatisfy(c -> assertThat(c.getType() + "=" + c.getStatus()).isEqualTo("Running=False"));
    await(
        "Started and Succeeded Events",
        () -> reasons("trim-e2e").containsAll(List.of("Started", "Succeeded")));
    assertThat(tokenReviews.get()).as("TokenReviews of the operator's token").isPositive();
    String metrics =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + operator.healthPort() + "/metrics"))
                    .build(),
                HttpResponse.BodyHandlers.ofString())
            .body();
    assertThat(metrics)
        .contains("thinvol_reclaimspace_jobs_total{result=\"Succeeded\",reason=\"Reclaimed\"} 1")
        .contains("thinvol_reclaimspace_reclaimed_bytes_total " + reported)
        .contains("thinvol_operator_reconciliations_total");
    System.out.printf(
        "e2e: image %d -> %d bytes (shrank %d), job reported %d (%.3f%%)%n",
        before, after, shrank, reported, 100.0 * (reported - shrank) / shrank);
    assertThat(driver.isAlive()).isTrue();
  }

  private Process startDriver(int port) throws IOException, InterruptedException {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process process =
        new ProcessBuilder(
                List.of(
                    java,
                    "-Dkubernetes.master=" + client.getMasterUrl(),
                    "-Dkubernetes.trust.certificates=true",
                    "-Dkubernetes.auth.tryKubeConfig=false",
                    "-Dkubernetes.auth.tryServiceAccount=false",
                    "-cp",
                    System.getProperty("java.class.path"),
                    "io.thinvol.driver.cli.ThinvolCommand",
                    "driver",
                    "--csi-endpoint=unix://" + root.resolve("csi.sock"),
                    "--driver-name=" + BackendNames.driver("local"),
                    "--node-id=" + NODE,
                    "--data-dir=" + root.resolve("data"),
                    "--addons-endpoint=unix://" + root.resolve("addons.sock"),
                    "--addons-port=" + port,
                    "--addons-tls-cert=" + root.resolve("tls.crt"),
                    "--addons-tls-key=" + root.resolve("tls.key"),
                    "--addons-allowed-serviceaccounts=" + NAMESPACE + ":thinvol-operator",
                    "--http-port=0"))
            .redirectErrorStream(true)
            .redirectOutput(root.resolve("driver.log").toFile())
            .start();
    closing.add(
        () -> {
          process.destroy();
          if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
          }
        });
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (!Files.exists(root.resolve("csi.sock"))) {
      if (!process.isAlive() || System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "driver did not start: " + Files.readString(root.resolve("driver.log")));
      }
      Thread.sleep(50);
    }
    return process;
  }

  /** The PV, the bound PVC and the driver pod, as Kubernetes would hold them. */
  private void cluster(String volumeId, int port) {
    String driver = BackendNames.driver("local");
    client
        .resource(ClusterFixtures.volume("pv-e2e", driver, volumeId, NODE, "apps", "data"))
        .create();
    client.resource(ClusterFixtures.boundClaim("apps", "data", "local", "pv-e2e")).create();
    client
        .resource(ClusterFixtures.driverPod(NAMESPACE, "local", NODE, "127.0.0.1", port))
        .create();
  }

  private List<String> reasons(String name) {
    return client.v1().events().inNamespace("apps").list().getItems().stream()
        .filter(e -> name.equals(e.getInvolvedObject().getName()))
        .map(Event::getReason)
        .toList();
  }

  /** The mock API server's TokenReview: the operator's token is its ServiceAccount. */
  private String review(String body) {
    TokenReview request = Serialization.unmarshal(body, TokenReview.class);
    TokenReviewStatus status = new TokenReviewStatus();
    if (OPERATOR_TOKEN.equals(request.getSpec().getToken())) {
      tokenReviews.incrementAndGet();
      status.setAuthenticated(true);
      UserInfo user = new UserInfo();
      user.setUsername("system:serviceaccount:" + NAMESPACE + ":thinvol-operator");
      status.setUser(user);
    } else {
      status.setAuthenticated(false);
      status.setError("invalid bearer token");
    }
    request.setStatus(status);
    return Serialization.asJson(request);
  }
}
