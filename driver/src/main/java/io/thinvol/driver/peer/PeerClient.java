package io.thinvol.driver.peer;

import csi.v1.ControllerGrpc;
import csi.v1.ControllerModifyVolumeRequest;
import csi.v1.ControllerModifyVolumeResponse;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.MetadataUtils;
import io.thinvol.driver.core.CsiException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Calls a peer driver's CSI-Addons TLS port. Every node pod presents the same certificate (the
 * backend's Secret, mounted here too), so the peer is verified against this driver's own
 * certificate file, by the DNS name in it; the bearer token is this driver's projected
 * ServiceAccount token. Both files are read at each call: the kubelet replaces them in place. A
 * channel lives for one call: forwards are rare, and a peer's IP changes with its pod.
 */
public final class PeerClient {

  private static final Metadata.Key<String> AUTHORIZATION =
      Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);

  private static final int FLOW_CONTROL_WINDOW = 8 << 20;

  private final Path certificate;
  private final Path tokenFile;

  public PeerClient(Path certificate, Path tokenFile) {
    this.certificate = certificate;
    this.tokenFile = tokenFile;
  }

  ControllerModifyVolumeResponse modify(
      PeerEndpoint peer, ControllerModifyVolumeRequest request, Duration timeout) {
    Metadata headers = credentials();
    ManagedChannel channel = channel(peer);
    try {
      return ControllerGrpc.newBlockingStub(channel)
          .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(headers))
          .withDeadlineAfter(timeout.toMillis(), TimeUnit.MILLISECONDS)
          .controllerModifyVolume(request);
    } catch (StatusRuntimeException e) {
      throw answered(peer, e.getStatus());
    } finally {
      channel.shutdownNow();
    }
  }

  /** The headers that authenticate this driver to a peer: its current projected token. */
  public Metadata credentials() {
    Metadata headers = new Metadata();
    headers.put(AUTHORIZATION, "Bearer " + token());
    return headers;
  }

  /** The peer's code, with a message naming where it came from. */
  public static CsiException answered(PeerEndpoint peer, Status status) {
    String description = status.getDescription() == null ? "" : status.getDescription();
    if (status.getCode() == Status.Code.UNAVAILABLE && status.getCause() != null) {
      return new CsiException(
          Status.Code.UNAVAILABLE,
          "cannot reach the driver on "
              + peer.describe()
              + ", which holds the volume: "
              + description
              + " ("
              + status.getCause().getMessage()
              + ")");
    }
    return new CsiException(
        status.getCode(), "the driver on " + peer.describe() + " answered: " + description);
  }

  /** A TLS channel to {@code peer}, verified against the certificate every driver pod presents. */
  public ManagedChannel channel(PeerEndpoint peer) {
    try {
      return LargeDataFrames.overTls(
              NettyChannelBuilder.forAddress(peer.host(), peer.port()),
              GrpcSslContexts.forClient().trustManager(certificate.toFile()).build())
          .overrideAuthority(serverName())
          // a window of several of a copy's pieces keeps the stream from waiting on acks
          .flowControlWindow(FLOW_CONTROL_WINDOW)
          .build();
    } catch (IOException | IllegalArgumentException e) {
      throw new CsiException(
          Status.Code.UNAVAILABLE,
          "cannot use the CSI-Addons certificate " + certificate + " to call peers: " + e);
    }
  }

  /** The first DNS name of the certificate: the name the peer's (same) certificate is valid for. */
  private String serverName() throws IOException {
    try (InputStream in = Files.newInputStream(certificate)) {
      X509Certificate x509 =
          (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
      Collection<List<?>> names = x509.getSubjectAlternativeNames();
      if (names != null) {
        for (List<?> name : names) {
          if (Integer.valueOf(2).equals(name.get(0))) { // dNSName
            return (String) name.get(1);
          }
        }
      }
      throw new IOException("certificate " + certificate + " names no DNS name");
    } catch (CertificateException e) {
      throw new IOException("certificate " + certificate + ": " + e.getMessage(), e);
    }
  }

  private String token() {
    try {
      String token = Files.readString(tokenFile).strip();
      if (token.isEmpty()) {
        throw new IOException("the file is empty");
      }
      return token;
    } catch (IOException e) {
      throw new CsiException(
          Status.Code.UNAVAILABLE,
          "cannot read this driver's token "
              + tokenFile
              + " to call a peer: "
              + e.getMessage()
              + "; is the projected token volume mounted?");
    }
  }
}
