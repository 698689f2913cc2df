package io.thinvol.driver.peer;

import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.MetadataUtils;
import javax.net.ssl.SSLException;

/**
 * A channel to a node's CSI-Addons TLS port, as a caller holding {@code token} (or none) opens it.
 */
final class TlsPort {

  private TlsPort() {}

  static ManagedChannel channel(PeerDrivers nodes, String node, String token) throws SSLException {
    Metadata headers = new Metadata();
    if (token != null) {
      headers.put(
          Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER), "Bearer " + token);
    }
    return NettyChannelBuilder.forAddress("127.0.0.1", nodes.port(node))
        .sslContext(GrpcSslContexts.forClient().trustManager(nodes.certificate().toFile()).build())
        .overrideAuthority("localhost")
        .intercept(MetadataUtils.newAttachHeadersInterceptor(headers))
        .build();
  }
}
