package io.thinvol.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fabric8.kubernetes.api.model.Secret;
import io.thinvol.addons.call.GrpcReclaimCaller;
import io.thinvol.addons.call.ReclaimCaller;
import io.thinvol.api.BackendNames;
import io.thinvol.api.v1alpha1.ReclaimSpaceJob;
import io.thinvol.api.v1alpha1.ReclaimSpaceJobSpec;
import io.thinvol.api.v1alpha1.ReclaimTarget;
import io.thinvol.testing.StrictCluster;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.assertj.core.data.Percentage;
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

  private static final long MIB = 1L << 20;

  private GrpcReclaimCaller caller;
  private DriverOnHost host;

  @Override
  ReclaimCaller caller() {
    caller = new GrpcReclaimCaller(client, NAMESPACE, () -> ReviewedTokens.OPERATOR_TOKEN);
    return caller;
  }

  @AfterEach
  void releaseHost() throws Exception {
    caller.close();
    if (host != null) {
      assertThat(host.release()).as("mounts or loop devices left behind").isEmpty();
    }
  }

  @Test
  void aJobReportsTheBytesTheImageFileReallyGaveBack() throws Exception {
    assumeTrue(
        cluster instanceof StrictCluster,
        "mock only: the driver's TokenReview of the operator's token is answered by an"
            + " expectation; the impersonating test client has no token a real server could review");
    AtomicInteger tokenReviews = ReviewedTokens.answer(((StrictCluster) cluster).mock());
    DriverOnHost.prepareCluster(client);
    apply(
        """
        metadata:
          name: local
        spec:
          reclaimSpace:
            maxConcurrentPerNode: 1
            timeout: 2m
        """);
    Secret tls = namespaced(Secret.class, BackendNames.ADDONS_TLS_SECRET);
    host = DriverOnHost.start(client, NAMESPACE, "local", tls);
    host.writeAndDelete(256 * MIB);
    long before = host.imageBytes();

    ReclaimSpaceJob job = new ReclaimSpaceJob();
    job.getMetadata().setName("trim-e2e");
    job.getMetadata().setNamespace("apps");
    ReclaimSpaceJobSpec spec = new ReclaimSpaceJobSpec();
    spec.setTarget(new ReclaimTarget(DriverOnHost.CLAIM));
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
    long after = host.imageBytes();

    assertThat(done.getStatus().getResult())
        .as("result, message: %s", done.getStatus().getMessage())
        .isEqualTo("Succeeded");
    long reported = done.getStatus().getReclaimedSpace().getNumericalAmount().longValueExact();
    long shrank = before - after;
    assertThat(shrank).as("the image gave back most of the 256 MiB").isGreaterThan(240 * MIB);
    assertThat((double) reported).isCloseTo((double) shrank, Percentage.withPercentage(1));
    assertThat(done.getStatus().getPostUsage().getNumericalAmount().longValueExact())
        .isEqualTo(after);
    assertThat(done.getStatus().getSteps().getNode().getResult()).isEqualTo("Succeeded");
    assertThat(done.getStatus().getConditions())
        .anySatisfy(c -> assertThat(c.getType() + "=" + c.getStatus()).isEqualTo("Succeeded=True"))
        .anySatisfy(c -> assertThat(c.getType() + "=" + c.getStatus()).isEqualTo("Failed=False"))
        .anySatisfy(c -> assertThat(c.getType() + "=" + c.getStatus()).isEqualTo("Running=False"));
    await(
        "Started and Succeeded Events",
        () -> eventReasons("apps", "trim-e2e").containsAll(List.of("Started", "Succeeded")));
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
  }
}
