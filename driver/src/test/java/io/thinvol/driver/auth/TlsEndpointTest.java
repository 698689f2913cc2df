package io.thinvol.driver.auth;

import static io.thinvol.driver.GrpcAssertions.assertCode;
import static io.thinvol.driver.GrpcAssertions.message;
import static org.assertj.core.api.Assertions.assertThat;

import csi.v1.VolumeCapability;
import csiaddons.identity.Capability;
import csiaddons.identity.GetCapabilitiesRequest;
import csiaddons.reclaimspace.NodeReclaimSpaceResponse;
import io.fabric8.kubernetes.api.model.authentication.TokenReview;
import io.fabric8.kubernetes.api.model.authentication.TokenReviewStatus;
import io.fabric8.kubernetes.api.model.authentication.UserInfo;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.MetadataUtils;
import io.thinvol.driver.DriverHarness;
import io.thinvol.driver.client.AddonsClient;
import io.thinvol.driver.client.Capabilities;
import io.thinvol.driver.config.AddonsConfig;
import io.thinvol.driver.host.ProcessCommandRunner;
import io.thinvol.driver.preflight.DataFiles;
import io.thinvol.driver.server.Driver;
import java.io.IOException;
import java.net.HttpURLConnection;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The CSI-Addons TLS port: only Bearer tokens of the allowed ServiceAccount get through. The
 * TokenReviews are answered by the fabric8 mock API server.
 */
@EnableKubernetesMockClient(https = false)
class TlsEndpointTest {

  private static final String OPERATOR = "system:serviceaccount:thinvol-system:thinvol-operator";
  private static final String OPERATOR_TOKEN = "operator-token-1234";
  private static final String OTHER_TOKEN = "other-token-5678";

  KubernetesMockServer server;
  KubernetesClient client;

  private DriverHarness volumes;
  private Driver tlsDriver;
  private Path tls;
  private int port;

  @BeforeEach
  void start() throws IOException {
    server
        .expect()
        .post()
        .withPath("/apis/authentication.k8s.io/v1/tokenreviews")
        .andReply(HttpURLConnection.HTTP_CREATED, request -> review(request.getBody().readUtf8()))
        .always();
    volumes = new DriverHarness();
    tls = volumes.root().resolve("tls");
    Files.createDirectories(tls);
    new ProcessCommandRunner()
        .run(
            Duration.ofMinutes(1),
            List.of(
                "openssl",
                "req",
                "-x509",
                "-newkey",
                "rsa:2048",
                "-nodes",
                "-days",
                "1",
                "-subj",
                "/CN=localhost",
                "-addext",
                "subjectAltName=DNS:localhost,IP:127.0.0.1",
                "-keyout",
                tls.resolve("tls.key").toString(),
                "-out",
                tls.resolve("tls.crt").toString()));
    try (ServerSocket free = new ServerSocket(0)) {
      port = free.getLocalPort();
    }
    // A second driver process-equivalent on the same data dir would fight over locks; instead
    // the TLS driver gets its own data dir and the test stages its volume through it.
    tlsDriver =
        Driver.start(
            new io.thinvol.driver.config.DriverConfig(
                "unix://" + volumes.root().resolve("tls-csi.sock"),
                "test.thinvol.io",
                "node-a",
                volumes.root().resolve("tls-data"),
                100,
                1.0,
                "test"),
            new AddonsConfig(
                null,
                port,
                tls.resolve("tls.crt"),
                tls.resolve("tls.key"),
                Set.of("thinvol-system:thinvol-operator")),
            new KubernetesTokenVerifier(client));
  }

  @AfterEach
  void stop() throws IOException {
    tlsDriver.close();
    volumes.close();
  }

  /** The mock API server's TokenReview: two known tokens, everything else invalid. */
  private static String review(String body) {
    TokenReview request = Serialization.unmarshal(body, TokenReview.class);
    String token = request.getSpec().getToken();
    String user =
        switch (token) {
          case OPERATOR_TOKEN -> OPERATOR;
          case OTHER_TOKEN -> "system:serviceaccount:default:someone";
          default -> null;
        };
    TokenReviewStatus status = new TokenReviewStatus();
    status.setAuthenticated(user != null);
    if (user != null) {
      UserInfo info = new UserInfo();
      info.setUsername(user);
      status.setUser(info);
    } else {
      status.setError("invalid bearer token");
    }
    request.setStatus(status);
    return Serialization.asJson(request);
  }

  private ManagedChannel tlsChannel(String token) throws IOException {
    NettyChannelBuilder builder =
        NettyChannelBuilder.forAddress("localhost", port)
            .sslContext(
                GrpcSslContexts.forClient().trustManager(tls.resolve("tls.crt").toFile()).build());
    if (token != null) {
      Metadata headers = new Metadata();
      headers.put(Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER), token);
      builder.intercept(MetadataUtils.newAttachHeadersInterceptor(headers));
    }
    return builder.build();
  }

  private AddonsClient addons(String authorization) throws IOException {
    return new AddonsClient(tlsChannel(authorization));
  }

  @Test
  @DisplayName("No token, a malformed header and an invalid token are UNAUTHENTICATED")
  void unauthenticated() throws IOException {
    for (String authorization :
        new String[] {null, "Basic dXNlcjpwYXNz", "Bearer ", "Bearer bogus"}) {
      try (AddonsClient addons = addons(authorization)) {
        assertThat(
                message(
                    assertCode(
                        Status.Code.UNAUTHENTICATED,
                        () ->
                            addons
                                .identity()
                                .getCapabilities(GetCapabilitiesRequest.getDefaultInstance()))))
            .doesNotContain("bogus");
      }
    }
  }

  @Test
  @DisplayName("A valid token of another ServiceAccount is PERMISSION_DENIED")
  void otherAccount() throws IOException {
    try (AddonsClient addons = addons("Bearer " + OTHER_TOKEN)) {
      assertThat(
              message(
                  assertCode(
                      Status.Code.PERMISSION_DENIED,
                      () -> addons.reclaimOffline("vol-ffffffffffffffffffffffffffffffff"))))
          .contains("system:serviceaccount:default:someone")
          .doesNotContain(OTHER_TOKEN);
    }
  }

  @Test
  @DisplayName("A plaintext connection to the TLS port fails")
  void plaintext() {
    ManagedChannel plain = NettyChannelBuilder.forAddress("localhost", port).usePlaintext().build();
    try (AddonsClient addons = new AddonsClient(plain)) {
      assertCode(
          Status.Code.UNAVAILABLE,
          () -> addons.identity().getCapabilities(GetCapabilitiesRequest.getDefaultInstance()));
    }
  }

  @Test
  @DisplayName("The operator's token works end to end: capabilities and a real reclaim")
  void operatorEndToEnd() throws IOException {
    try (AddonsClient addons = addons("Bearer " + OPERATOR_TOKEN);
        io.thinvol.driver.client.CsiClient csi =
            new io.thinvol.driver.client.CsiClient(volumes.root().resolve("tls-csi.sock"))) {
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
    assertThat(server.getRequestCount())
        .as("one TokenReview for several calls with the same token")
        .isEqualTo(1);
    assertThat(new String(Files.readAllBytes(tls.resolve("tls.crt")), StandardCharsets.US_ASCII))
        .startsWith("-----BEGIN CERTIFICATE-----");
  }
}
