package io.thinvol.addons;

import static org.assertj.core.api.Assertions.assertThat;

import io.thinvol.addons.call.GrpcReclaimCaller;
import io.thinvol.addons.call.ReclaimCaller;
import io.thinvol.api.v1alpha1.ReclaimSpaceJob;
import io.thinvol.testing.StrictApiServer;
import io.thinvol.testing.TestCluster;
import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The real gRPC client, as the operator's ServiceAccount, against a driver pod whose port is
 * closed, and against bad specs.
 */
class UnreachableDriverTest extends AddonsClusterTest {

  private GrpcReclaimCaller caller;

  @Override
  ReclaimCaller caller() {
    if (caller == null) { // one caller across the operator's restart
      caller = new GrpcReclaimCaller(operatorClient, NAMESPACE, () -> "operator-token");
    }
    return caller;
  }

  @AfterEach
  void closeCaller() {
    caller.close();
  }

  @Test
  void anUnreachablePodIsRetriedSecondsApartThenReported() throws IOException {
    claimOnAnUnreachableDriverPod();

    ReclaimSpaceJob job =
        awaitResult(job("trim", "data", s -> s.setBackOffLimit(2)).getMetadata().getName());

    assertThat(job.getStatus().getResult()).isEqualTo("Failed");
    assertThat(job.getStatus().getMessage())
        .startsWith(
            "gave up after 3 attempt(s) (backOffLimit 2); last error: NodeReclaimSpace on"
                + " node node-a failed: the driver pod cannot be reached");
    assertThat(elapsed(job)).isGreaterThanOrEqualTo(FIRST_BACKOFF.multipliedBy(3));
    ReclaimSpaceJobTest.assertCondition(job, "Failed", "True", "BackoffLimitExceeded");
  }

  @Test
  void aPodThatNeverAnswersIsCutOffAtTheTimeout() throws IOException {
    try (ServerSocket silent = new ServerSocket(0)) { // accepts, never speaks TLS
      backend(1, "1s");
      tlsSecret(testCertificate());
      driverPod("node-a", "127.0.0.1", silent.getLocalPort());
      boundClaim("data", "vol-1", "node-a");

      ReclaimSpaceJob job =
          awaitResult(job("slow", "data", s -> s.setBackOffLimit(0)).getMetadata().getName());

      assertThat(job.getStatus().getMessage())
          .contains(
              "NodeReclaimSpace on node node-a failed: the call did not finish within its"
                  + " timeout");
      assertThat(elapsed(job)).isBetween(Duration.ofSeconds(1), Duration.ofSeconds(5));
    }
  }

  @Test
  void aMissingCertificateSecretIsReportedAsUnreachable() {
    backend(1, "10m");
    driverPod("node-a", "127.0.0.1", 9);
    boundClaim("data", "vol-1", "node-a");

    ReclaimSpaceJob job =
        awaitResult(job("trim", "data", s -> s.setBackOffLimit(0)).getMetadata().getName());

    assertThat(job.getStatus().getMessage())
        .contains(
            "Secret thinvol-system/thinvol-addons-tls with the driver's certificate"
                + " does not exist");
  }

  @Test
  void aSpecTheSchemaWouldRefuseFailsWithoutACall() {
    backend(1, "10m");
    boundClaim("data", "vol-1", "node-a");

    ReclaimSpaceJob job =
        awaitResult(unvalidatedJob("bad", "data", s -> s.setTimeout(5L)).getMetadata().getName());

    assertThat(job.getStatus().getResult()).isEqualTo("Failed");
    assertThat(job.getStatus().getMessage())
        .isEqualTo("spec.timeout is 5 seconds; it must be at least 60");
    ReclaimSpaceJobTest.assertCondition(job, "Failed", "True", "InvalidSpec");
  }

  /**
   * The certificate a call pins comes from the operator's cache of the addons TLS Secret: a GET
   * there sat between a job's creation and its call once a minute, so for nearly every job.
   */
  @Test
  void aJobReadsNoSecretOnItsWayToTheDriver() throws IOException {
    claimOnAnUnreachableDriverPod();
    restartOperator(() -> {}); // the caches start with the Secret in them

    ReclaimSpaceJob job =
        awaitResult(job("trim", "data", s -> s.setBackOffLimit(0)).getMetadata().getName());

    // the call was made (with the cached certificate) and failed at the closed port
    assertThat(job.getStatus().getMessage()).contains("the driver pod cannot be reached");
    assertThat(
            cluster.decisions().stream()
                .filter(d -> d.user().equals(TestCluster.OPERATOR))
                .filter(d -> d.request().resource().equals("secrets"))
                .filter(d -> d.request().verb().equals("get"))
                .map(StrictApiServer.Decision::request))
        .as("the operator's GETs of Secrets")
        .isEmpty();
  }

  /** A bound claim "data" on node-a, whose driver pod listens on no port. */
  private void claimOnAnUnreachableDriverPod() throws IOException {
    int closedPort;
    try (ServerSocket socket = new ServerSocket(0)) {
      closedPort = socket.getLocalPort();
    }
    backend(1, "10m");
    tlsSecret(testCertificate());
    driverPod("node-a", "127.0.0.1", closedPort);
    boundClaim("data", "vol-1", "node-a");
  }
}
