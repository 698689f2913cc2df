package io.thinvol.driver.auth;

import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.MetadataUtils;
import io.thinvol.driver.DriverHarness;
import io.thinvol.driver.SelfSignedPair;
import io.thinvol.driver.client.AddonsClient;
import io.thinvol.driver.config.AddonsConfig;
import io.thinvol.driver.config.DriverConfig;
import io.thinvol.driver.server.Driver;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;

/**
 * A driver serving the CSI-Addons TLS port with a fresh self-signed certificate, on its own data
 * dir under the harness's root (a second driver on the harness's data dir would fight over its
 * lock), admitting the operator's ServiceAccount.
 */
final class TlsAddonsPort implements AutoCloseable {

  static final String OPERATOR_ACCOUNT = "thinvol-system:thinvol-operator";
  static final String OPERATOR = "system:serviceaccount:" + OPERATOR_ACCOUNT;
  static final String AUDIENCE = AddonsConfig.DEFAULT_TOKEN_AUDIENCE;

  private final Path root;
  private final Driver driver;
  private final int port;

  private TlsAddonsPort(Path root, Driver driver, int port) {
    this.root = root;
    this.driver = driver;
    this.port = port;
  }

  static TlsAddonsPort start(DriverHarness volumes, TokenVerifier verifier) throws IOException {
    Path root = volumes.root();
    Path tls = root.resolve("tls");
    Files.createDirectories(tls);
    SelfSignedPair.write(
        tls.resolve("tls.crt"),
        tls.resolve("tls.key"),
        "localhost",
        "subjectAltName=DNS:localhost,IP:127.0.0.1");
    int port;
    try (ServerSocket free = new ServerSocket(0)) {
      port = free.getLocalPort();
    }
    Driver driver =
        Driver.start(
            new DriverConfig(
                "unix://" + csiSocket(root),
                "test.thinvol.io",
                "node-a",
                root.resolve("tls-data"),
                100,
                1.0,
                "test"),
            new AddonsConfig(
                null,
                port,
                tls.resolve("tls.crt"),
                tls.resolve("tls.key"),
                Set.of(OPERATOR_ACCOUNT),
                AUDIENCE),
            verifier);
    return new TlsAddonsPort(root, driver, port);
  }

  static Path csiSocket(Path root) {
    return root.resolve("tls-csi.sock");
  }

  Path certificate() {
    return root.resolve("tls").resolve("tls.crt");
  }

  /** A channel sending {@code authorization} (none when null) with every call. */
  ManagedChannel channel(String authorization) throws IOException {
    NettyChannelBuilder builder =
        NettyChannelBuilder.forAddress("localhost", port)
            .sslContext(GrpcSslContexts.forClient().trustManager(certificate().toFile()).build());
    if (authorization != null) {
      Metadata headers = new Metadata();
      headers.put(
          Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER), authorization);
      builder.intercept(MetadataUtils.newAttachHeadersInterceptor(headers));
    }
    return builder.build();
  }

  AddonsClient addons(String authorization) throws IOException {
    return new AddonsClient(channel(authorization));
  }

  int port() {
    return port;
  }

  @Override
  public void close() {
    driver.close();
  }
}
