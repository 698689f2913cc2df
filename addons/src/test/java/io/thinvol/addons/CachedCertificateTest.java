package io.thinvol.addons;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.thinvol.addons.call.GrpcReclaimCaller;
import io.thinvol.addons.call.ReclaimCaller;
import io.thinvol.api.v1alpha1.ReclaimSpaceJob;
import io.thinvol.testing.StrictApiServer;
import io.thinvol.testing.TestCluster;
import java.io.IOException;
import java.net.ServerSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The certificate a call to a driver pod pins comes from the operator's cache of the backends' TLS
 * Secrets: a job reads no Secret on its way to the driver (a GET there sat between a job's creation
 * and its call, once a minute, so for nearly every job of a weekly schedule).
 */
class CachedCertificateTest extends AddonsClusterTest {

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
  void aJobReadsNoSecretOnItsWayToTheDriver() throws IOException {
    assumeTrue(cluster.strict().isPresent(), "mock only: counts the operator's requests");
    int closedPort;
    try (ServerSocket socket = new ServerSocket(0)) {
      closedPort = socket.getLocalPort();
    }
    backend(1, "10m");
    tlsSecret(testCertificate());
    driverPod("node-a", "127.0.0.1", closedPort);
    boundClaim("data", "vol-1", "node-a");
    restartOperator(() -> {}); // the caches start with the Secret in them

    ReclaimSpaceJob job =
        awaitResult(job("trim", "data", s -> s.setBackOffLimit(0)).getMetadata().getName());

    // the call was made (with the cached certificate) and failed at the closed port
    assertThat(job.getStatus().getMessage()).contains("the driver pod cannot be reached");
    assertThat(
            cluster.strict().get().decisions().stream()
                .filter(d -> d.user().equals(TestCluster.OPERATOR))
                .filter(d -> d.request().resource().equals("secrets"))
                .filter(d -> d.request().verb().equals("get"))
                .map(StrictApiServer.Decision::request))
        .as("the operator's GETs of Secrets")
        .isEmpty();
  }
}
