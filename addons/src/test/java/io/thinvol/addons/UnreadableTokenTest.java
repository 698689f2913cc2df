package io.thinvol.addons;

import static org.assertj.core.api.Assertions.assertThat;

import io.thinvol.addons.call.GrpcReclaimCaller;
import io.thinvol.addons.call.ProjectedToken;
import io.thinvol.addons.call.ReclaimCaller;
import io.thinvol.api.v1alpha1.ReclaimSpaceJob;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The real gRPC client when the operator's own projected token file is missing. */
class UnreadableTokenTest extends AddonsClusterTest {

  @TempDir Path dir;

  private GrpcReclaimCaller caller;

  @Override
  ReclaimCaller caller() {
    ProjectedToken token =
        new ProjectedToken(dir.resolve("token"), ProjectedToken.DEFAULT_AUDIENCE);
    caller = new GrpcReclaimCaller(client, NAMESPACE, token);
    return caller;
  }

  @AfterEach
  void closeCaller() {
    caller.close();
  }

  @Test
  void aMissingTokenFileIsTheOperatorsProblemNotTheDrivers() {
    backend(1, "10m");
    tlsSecret(testCertificate());
    driverPod("node-a", "127.0.0.1", 9);
    boundClaim("data", "vol-1", "node-a");

    ReclaimSpaceJob job =
        awaitResult(job("trim", "data", s -> s.setBackOffLimit(0)).getMetadata().getName());

    assertThat(job.getStatus().getResult()).isEqualTo("Failed");
    assertThat(job.getStatus().getMessage())
        .contains(
            "NodeReclaimSpace on node node-a failed: the operator cannot read its token file "
                + dir.resolve("token")
                + ": no such file")
        .doesNotContain("the driver did not accept");
    assertThat(job.getStatus().getSteps().getNode().getMessage())
        .startsWith("the operator cannot read its token file");
  }
}
