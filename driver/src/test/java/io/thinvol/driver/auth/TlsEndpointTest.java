package io.thinvol.driver.auth;

import static io.thinvol.driver.GrpcAssertions.assertCode;
import static io.thinvol.driver.GrpcAssertions.message;
import static io.thinvol.driver.auth.TlsAddonsPort.AUDIENCE;
import static io.thinvol.driver.auth.TlsAddonsPort.OPERATOR;
import static org.assertj.core.api.Assertions.assertThat;

import csi.v1.VolumeCapability;
import csiaddons.identity.Capability;
import csiaddons.identity.GetCapabilitiesRequest;
import csiaddons.reclaimspace.NodeReclaimSpaceResponse;
import io.fabric8.kubernetes.api.model.authentication.TokenReview;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.netty.NettyChannelBuilder;
import io.thinvol.driver.DriverHarness;
import io.thinvol.driver.client.AddonsClient;
import io.thinvol.driver.client.Capabilities;
import io.thinvol.driver.client.CsiClient;
import io.thinvol.driver.preflight.DataFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The CSI-Addons TLS port: only the allowed ServiceAccount's tokens for the addons audience get
 * through. The fabric8 mock API server publishes the cluster's signing keys and answers the
 * TokenReviews.
 */
@EnableKubernetesMockClient(https = false)
class TlsEndpointTest {

  KubernetesMockServer server;

  private final ServiceAccountTokens tokens = new ServiceAccountTokens();
  private final Instant inTenMinutes = Instant.now().plus(Duration.ofMinutes(10));
  private MockTokenReviews reviews;
  private DriverHarness volumes;
  private TlsAddonsPort port;

  @BeforeEach
  void start() throws IOException {
    reviews = MockTokenReviews.on(server);
    MockKeySet.on(server, tokens);
    volumes = new DriverHarness();
    port =
        TlsAddonsPort.start(
            volumes, new KubernetesTokenVerifier(() -> MockTokenReviews.api(server), AUDIENCE));
  }

  @AfterEach
  void stop() throws IOException {
    port.close();
    volumes.close();
  }

  private String operatorToken(String audience) {
    return reviews.issued(
        tokens.issue(TlsAddonsPort.OPERATOR_ACCOUNT, audience, inTenMinutes), OPERATOR);
  }

  private String refusal(Status.Code code, String authorization) throws IOException {
    try (AddonsClient addons = port.addons(authorization)) {
      return message(
          assertCode(
              code,
              () ->
                  addons.identity().getCapabilities(GetCapabilitiesRequest.getDefaultInstance())));
    }
  }

  @Test
  @DisplayName(
      "No token, a malformed header, a forged signature and a token the cluster no longer knows"
          + " are UNAUTHENTICATED")
  void unauthenticated() throws IOException {
    String unknown = tokens.issue(TlsAddonsPort.OPERATOR_ACCOUNT, AUDIENCE, inTenMinutes);
    String forged = tokens.forged(TlsAddonsPort.OPERATOR_ACCOUNT, AUDIENCE);
    for (String authorization :
        new String[] {
          null,
          "Basic dXNlcjpwYXNz",
          "Bearer ",
          "Bearer bogus",
          "Bearer " + forged,
          "Bearer " + unknown
        }) {
      assertThat(refusal(Status.Code.UNAUTHENTICATED, authorization))
          .doesNotContain("bogus")
          .doesNotContain(forged)
          .doesNotContain(unknown);
    }
    assertThat(refusal(Status.Code.UNAUTHENTICATED, "Bearer " + forged))
        .contains("signature is not the cluster's");
    assertThat(reviews.requests())
        .as("only the token the cluster signed was reviewed")
        .extracting(r -> r.getSpec().getToken())
        .containsExactly(unknown);
  }

  @Test
  @DisplayName(
      "The operator's API-server token is refused without a TokenReview: wrong audience; and a"
          + " review must name the audience")
  void wrongAudience() throws IOException {
    String apiServerToken = operatorToken(ServiceAccountTokens.API_SERVER_AUDIENCE);
    assertThat(refusal(Status.Code.UNAUTHENTICATED, "Bearer " + apiServerToken))
        .contains("audience '" + AUDIENCE + "'")
        .doesNotContain(apiServerToken);
    assertThat(reviews.requests()).as("refused before any API call").isEmpty();

    try (AddonsClient addons = port.addons("Bearer " + operatorToken(AUDIENCE))) {
      addons.identity().getCapabilities(GetCapabilitiesRequest.getDefaultInstance());
    }
    assertThat(reviews.requests())
        .extracting(r -> r.getSpec().getAudiences())
        .containsExactly(List.of(AUDIENCE));
  }

  @Test
  @DisplayName(
      "A valid token of another ServiceAccount is PERMISSION_DENIED, naming no allowed one")
  void otherAccount() throws IOException {
    String other =
        reviews.issued(
            tokens.issue("default:someone", AUDIENCE, inTenMinutes),
            "system:serviceaccount:default:someone");
    try (AddonsClient addons = port.addons("Bearer " + other)) {
      assertThat(
              message(
                  assertCode(
                      Status.Code.PERMISSION_DENIED,
                      () -> addons.reclaimOffline("vol-ffffffffffffffffffffffffffffffff"))))
          .contains("system:serviceaccount:default:someone")
          .doesNotContain("thinvol-operator")
          .doesNotContain("thinvol-system")
          .doesNotContain(other);
    }
    assertThat(reviews.requests()).as("turned away by its signed subject, unreviewed").isEmpty();
  }

  @Test
  @DisplayName("A plaintext connection to the TLS port fails")
  void plaintext() {
    ManagedChannel plain =
        NettyChannelBuilder.forAddress("localhost", port.port()).usePlaintext().build();
    try (AddonsClient addons = new AddonsClient(plain)) {
      assertCode(
          Status.Code.UNAVAILABLE,
          () -> addons.identity().getCapabilities(GetCapabilitiesRequest.getDefaultInstance()));
    }
  }

  @Test
  @DisplayName("The operator's token works end to end: capabilities and a real reclaim")
  void operatorEndToEnd() throws IOException {
    try (AddonsClient addons = port.addons("Bearer " + operatorToken(AUDIENCE));
        CsiClient csi = new CsiClient(TlsAddonsPort.csiSocket(volumes.root()))) {
      assertThat(
              addons
                  .identity()
                  .getCapabilities(GetCapabilitiesRequest.getDefaultInstance())
                  .getCapabilitiesList())
          .extracting(Capability::getReclaimSpace)
          .extracting(Capability.ReclaimSpace::getType)
          .contains(Capability.ReclaimSpace.Type.OFFLINE, Capability.ReclaimSpace.Type.ONLINE);

      VolumeCapability ext4 = Capabilities.mount("ext4");
      String id = csi.createVolume("over-tls", 256L << 20, ext4, null);
      Path staging = volumes.root().resolve("tls-staging");
      Path target = volumes.root().resolve("tls-target");
      csi.stage(id, staging, ext4);
      csi.publish(id, staging, target, ext4, false);
      Path garbage = target.resolve("garbage.bin");
      DataFiles.writeRandom(garbage, 64L << 20);
      Files.delete(garbage);
      NodeReclaimSpaceResponse response = addons.reclaimOnNode(id, staging);
      assertThat(response.getPreUsage().getUsageBytes() - response.getPostUsage().getUsageBytes())
          .isGreaterThanOrEqualTo(60L << 20);
      csi.unpublish(id, target);
      csi.unstage(id, staging);
      csi.deleteVolume(id);
    }
    assertThat(reviews.requests())
        .as("one TokenReview for several calls with the same token")
        .extracting(TokenReview::getSpec)
        .hasSize(1);
  }
}
