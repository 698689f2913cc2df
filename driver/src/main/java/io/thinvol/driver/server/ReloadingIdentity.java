package io.thinvol.driver.server;

import io.grpc.util.AdvancedTlsX509KeyManager;
import io.grpc.util.CertificateUtils;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.X509ExtendedKeyManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The TLS port's certificate and key, read again from disk every {@link #PERIOD}: when the operator
 * replaces the Secret, the kubelet swaps the mounted files and new connections get the new
 * certificate without restarting the driver (which would roll every node). A new pair is served
 * only once the key matches the certificate, so a half-written update never breaks handshakes; the
 * old pair stays until then. (grpc-java's own file watch polls at most once a minute and compares
 * modification times only.)
 */
final class ReloadingIdentity implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(ReloadingIdentity.class);

  /** The kubelet itself takes up to a minute or so to project a changed Secret. */
  static final Duration PERIOD = Duration.ofSeconds(15);

  private final Path certificate;
  private final Path key;
  private final AdvancedTlsX509KeyManager keyManager = new AdvancedTlsX509KeyManager();
  private final ScheduledExecutorService reloads =
      Executors.newSingleThreadScheduledExecutor(
          runnable -> {
            Thread thread = new Thread(runnable, "tls-reload");
            thread.setDaemon(true);
            return thread;
          });
  private byte[] served = new byte[0];

  private ReloadingIdentity(Path certificate, Path key) {
    this.certificate = certificate;
    this.key = key;
  }

  static ReloadingIdentity watch(Path certificate, Path key) throws IOException {
    return watch(certificate, key, PERIOD);
  }

  /** Reads both files now (failing if they do not make a pair) and then every {@code period}. */
  static ReloadingIdentity watch(Path certificate, Path key, Duration period) throws IOException {
    ReloadingIdentity identity = new ReloadingIdentity(certificate, key);
    try {
      identity.reload();
    } catch (IOException | GeneralSecurityException | RuntimeException e) {
      identity.close();
      throw new IOException(
          "cannot use the TLS certificate " + certificate + " and key " + key + ": " + e, e);
    }
    identity.reloads.scheduleWithFixedDelay(
        identity::reloadIfChanged, period.toMillis(), period.toMillis(), TimeUnit.MILLISECONDS);
    return identity;
  }

  X509ExtendedKeyManager keyManager() {
    return keyManager;
  }

  private void reloadIfChanged() {
    try {
      reload();
    } catch (IOException | GeneralSecurityException | RuntimeException e) {
      log.warn(
          "the TLS certificate {} or key {} changed but cannot be used ({}); still serving the"
              + " previous pair",
          certificate,
          key,
          e.toString());
    }
  }

  private void reload() throws IOException, GeneralSecurityException {
    byte[] certificateBytes = Files.readAllBytes(certificate);
    byte[] keyBytes = Files.readAllBytes(key);
    byte[] both = concat(certificateBytes, keyBytes);
    if (Arrays.equals(both, served)) {
      return;
    }
    X509Certificate[] chain;
    PrivateKey privateKey;
    try (InputStream in = Files.newInputStream(certificate)) {
      chain = CertificateUtils.getX509Certificates(in);
    }
    try (InputStream in = Files.newInputStream(key)) {
      privateKey = CertificateUtils.getPrivateKey(in);
    }
    if (chain.length == 0) {
      throw new GeneralSecurityException("no certificate in " + certificate);
    }
    requirePair(chain[0], privateKey);
    keyManager.updateIdentityCredentials(chain, privateKey);
    boolean first = served.length == 0;
    served = both;
    log.info(
        "{} TLS certificate {} (valid until {})",
        first ? "serving" : "reloaded",
        chain[0].getSubjectX500Principal().getName(),
        chain[0].getNotAfter().toInstant());
  }

  /** The key signs what the certificate's public key verifies. */
  private static void requirePair(X509Certificate certificate, PrivateKey key)
      throws GeneralSecurityException {
    String algorithm =
        key.getAlgorithm().equals("EC") ? "SHA256withECDSA" : "SHA256with" + key.getAlgorithm();
    byte[] probe = "thinvol".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    Signature signer = Signature.getInstance(algorithm);
    signer.initSign(key);
    signer.update(probe);
    byte[] signature = signer.sign();
    Signature verifier = Signature.getInstance(algorithm);
    verifier.initVerify(certificate.getPublicKey());
    verifier.update(probe);
    if (!verifier.verify(signature)) {
      throw new GeneralSecurityException("the key does not belong to the certificate");
    }
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] both = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, both, a.length, b.length);
    return both;
  }

  @Override
  public void close() {
    reloads.shutdownNow();
  }
}
