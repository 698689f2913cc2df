package io.thinvol.driver.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.thinvol.driver.SelfSignedPair;
import java.io.IOException;
import java.io.InputStream;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.SecureRandom;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The CSI-Addons TLS port serves a replaced certificate without a restart. The files are laid out
 * as the kubelet projects a Secret ({@code tls.crt -> ..data/tls.crt}, {@code ..data} a symlink to
 * a timestamped directory) and replaced as it does: a new directory, then {@code ..data} renamed
 * over atomically.
 */
class CertificateReloadTest {

  @TempDir Path volume;
  private GrpcServer server;

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
  }

  @Test
  void newConnectionsGetTheReplacedCertificate() throws Exception {
    X509Certificate first = project("first");
    Files.createSymbolicLink(volume.resolve("tls.crt"), Path.of("..data/tls.crt"));
    Files.createSymbolicLink(volume.resolve("tls.key"), Path.of("..data/tls.key"));
    int port;
    try (ServerSocket free = new ServerSocket(0)) {
      port = free.getLocalPort();
    }
    server =
        GrpcServer.onTlsPort(
            port,
            ReloadingIdentity.watch(
                volume.resolve("tls.crt"), volume.resolve("tls.key"), Duration.ofMillis(100)),
            List.of(),
            List.of(),
            null);
    assertThat(servedCertificate(port)).isEqualTo(first);

    X509Certificate second = project("second");
    assertThat(second).isNotEqualTo(first);

    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    X509Certificate served = servedCertificate(port);
    while (!served.equals(second) && System.nanoTime() < deadline) {
      Thread.sleep(50); // polling the observable result, bounded by the deadline
      served = servedCertificate(port);
    }
    assertThat(served.getSubjectX500Principal().getName())
        .as("the certificate new connections get")
        .isEqualTo("CN=second");
  }

  @Test
  void aMissingCertificateFailsTheStartNamingTheFiles() {
    Path certificate = volume.resolve("tls.crt");
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> ReloadingIdentity.watch(certificate, volume.resolve("tls.key")))
        .isInstanceOf(IOException.class)
        .hasMessageContaining(certificate.toString());
  }

  /** Writes a new self-signed pair as the kubelet updates a Secret volume; returns the cert. */
  private X509Certificate project(String name) throws Exception {
    Path version = volume.resolve("..2026_" + name);
    Files.createDirectories(version);
    SelfSignedPair.write(version.resolve("tls.crt"), version.resolve("tls.key"), name);
    Path link = volume.resolve("..data_tmp");
    Files.deleteIfExists(link);
    Files.createSymbolicLink(link, version.getFileName());
    Files.move(link, volume.resolve("..data"), StandardCopyOption.ATOMIC_MOVE);
    try (InputStream in = Files.newInputStream(version.resolve("tls.crt"))) {
      return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
    }
  }

  /** The certificate a new TLS connection to the port is given. */
  private static X509Certificate servedCertificate(int port) throws Exception {
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(null, new TrustManager[] {new AcceptAny()}, new SecureRandom());
    try (SSLSocket socket =
        (SSLSocket) context.getSocketFactory().createSocket("127.0.0.1", port)) {
      socket.setSoTimeout(10_000);
      socket.setEnabledProtocols(new String[] {"TLSv1.3", "TLSv1.2"});
      socket.setSSLParameters(alpn(socket));
      socket.startHandshake();
      return (X509Certificate) socket.getSession().getPeerCertificates()[0];
    }
  }

  /** gRPC's server requires HTTP/2 negotiated by ALPN. */
  private static javax.net.ssl.SSLParameters alpn(SSLSocket socket) {
    javax.net.ssl.SSLParameters parameters = socket.getSSLParameters();
    parameters.setApplicationProtocols(new String[] {"h2"});
    return parameters;
  }

  /** This test reads the served certificate; it does not decide whether to trust it. */
  private static final class AcceptAny implements X509TrustManager {
    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) {}

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) {}

    @Override
    public X509Certificate[] getAcceptedIssuers() {
      return new X509Certificate[0];
    }
  }
}
