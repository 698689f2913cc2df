package io.thinvol.addons.call;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.grpc.ManagedChannel;
import io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.NettyChannelBuilder;
import io.thinvol.addons.resolve.AddonsCertificate;
import io.thinvol.addons.resolve.DriverEndpoint;
import io.thinvol.api.BackendNames;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.stream.Collectors;
import javax.net.ssl.SSLException;

/**
 * The TLS channels to driver pods, one per pod and certificate, kept across calls so that a job
 * costs no TCP or TLS handshake. The driver's certificate is verified against the one in the
 * operator's Secret {@value BackendNames#ADDONS_TLS_SECRET} (every backend's drivers serve it), not
 * skipped. A channel no pod will use again is closed: when its pod moved to another address, when
 * the certificate was renewed, and when it went unused for {@link #FORGET_AFTER} (its pod may be
 * gone: a DaemonSet's new pods have new names).
 */
final class DriverChannels implements AutoCloseable {

  /** An unused channel drops its connection after this; it reconnects on the next call. */
  private static final Duration IDLE = Duration.ofMinutes(5);

  /** A channel unused this long is closed and forgotten. */
  static final Duration FORGET_AFTER = Duration.ofMinutes(10);

  /** A renewed certificate is picked up within this; calls in between read no Secret. */
  static final Duration CERTIFICATE_TTL = Duration.ofMinutes(1);

  private record Key(DriverEndpoint endpoint, String certificate) {}

  private static final class Open {
    private final ManagedChannel channel;
    private volatile long usedAtNanos;

    private Open(ManagedChannel channel) {
      this.channel = channel;
    }
  }

  private record Certificate(String pem, long readAtNanos) {}

  private final KubernetesClient client;
  private final String namespace;
  private final LongSupplier nanoTime;
  private final Map<Key, Open> channels = new ConcurrentHashMap<>();
  private volatile Certificate certificate;

  DriverChannels(KubernetesClient client, String namespace, LongSupplier nanoTime) {
    this.client = client;
    this.namespace = namespace;
    this.nanoTime = nanoTime;
  }

  /**
   * @throws IllegalStateException when the backend's certificate cannot be read or used
   */
  ManagedChannel channel(DriverEndpoint endpoint) {
    long now = nanoTime.getAsLong();
    String certificate = endpoint.certificate() != null ? endpoint.certificate() : certificate(now);
    // one channel per pod and certificate, however the certificate was found
    Key key =
        new Key(
            new DriverEndpoint(
                endpoint.backendName(), endpoint.podName(), endpoint.host(), endpoint.port(), null),
            certificate);
    channels
        .entrySet()
        .removeIf(
            e -> {
              boolean stale =
                  !e.getKey().equals(key)
                      && (e.getKey().endpoint().podName().equals(endpoint.podName())
                          || now - e.getValue().usedAtNanos > FORGET_AFTER.toNanos());
              if (stale) {
                e.getValue().channel.shutdown(); // a call still on it finishes first
              }
              return stale;
            });
    Open open = channels.computeIfAbsent(key, k -> new Open(open(endpoint, certificate)));
    open.usedAtNanos = now;
    return open.channel;
  }

  /** The channels open now, by the endpoint they reach. */
  Map<DriverEndpoint, ManagedChannel> open() {
    return channels.entrySet().stream()
        .collect(Collectors.toMap(e -> e.getKey().endpoint(), e -> e.getValue().channel));
  }

  private ManagedChannel open(DriverEndpoint endpoint, String certificate) {
    try {
      return NettyChannelBuilder.forAddress(endpoint.host(), endpoint.port())
          .sslContext(
              GrpcSslContexts.forClient()
                  .trustManager(
                      new ByteArrayInputStream(certificate.getBytes(StandardCharsets.US_ASCII)))
                  .build())
          .overrideAuthority(BackendNames.addonsServerName(namespace))
          .idleTimeout(IDLE.toMinutes(), TimeUnit.MINUTES)
          .build();
    } catch (SSLException | IllegalArgumentException e) {
      throw new IllegalStateException(
          "the certificate in Secret "
              + BackendNames.ADDONS_TLS_SECRET
              + " cannot be used: "
              + e.getMessage(),
          e);
    }
  }

  /**
   * The PEM certificate the driver pods present, read at most once a minute: for an endpoint
   * resolved before the operator's cache held the Secret.
   */
  private String certificate(long now) {
    Certificate cached = certificate;
    if (cached != null && now - cached.readAtNanos() < CERTIFICATE_TTL.toNanos()) {
      return cached.pem();
    }
    String pem = readCertificate();
    certificate = new Certificate(pem, now);
    return pem;
  }

  private String readCertificate() {
    String name = BackendNames.ADDONS_TLS_SECRET;
    Secret secret = client.secrets().inNamespace(namespace).withName(name).get();
    if (secret == null) {
      throw new IllegalStateException(
          "Secret " + namespace + "/" + name + " with the driver's certificate does not exist");
    }
    return AddonsCertificate.of(secret)
        .orElseThrow(
            () ->
                new IllegalStateException(
                    "Secret " + namespace + "/" + name + " holds no tls.crt"));
  }

  @Override
  public void close() {
    channels.values().forEach(o -> o.channel.shutdownNow());
    channels.clear();
  }
}
