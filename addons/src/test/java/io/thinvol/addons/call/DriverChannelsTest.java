package io.thinvol.addons.call;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.grpc.ManagedChannel;
import io.thinvol.addons.ClusterFixtures;
import io.thinvol.addons.resolve.DriverEndpoint;
import io.thinvol.api.BackendNames;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The caller keeps one channel (one TLS connection) per driver pod across jobs, and closes the
 * channels no pod will use again: a pod that moved, a certificate that was renewed, a pod gone.
 */
@EnableKubernetesMockClient(crud = true)
class DriverChannelsTest {

  private static final String NAMESPACE = "thinvol-system";
  private static final String BACKEND = "local";

  KubernetesClient client;
  private final AtomicLong nanos = new AtomicLong();
  private DriverChannels channels;

  @BeforeEach
  void certificate() throws IOException {
    secret(testCertificate());
    channels = new DriverChannels(client, NAMESPACE, nanos::get);
  }

  @AfterEach
  void close() {
    channels.close();
  }

  @Test
  void aPodKeepsOneChannelAcrossCalls() {
    ManagedChannel first = channels.channel(pod("node-a-pod", "10.0.0.1"));

    assertThat(channels.channel(pod("node-a-pod", "10.0.0.1"))).isSameAs(first);
    assertThat(first.isShutdown()).isFalse();
  }

  @Test
  void aPodAtANewAddressGetsANewChannelAndTheOldOneIsClosed() {
    ManagedChannel old = channels.channel(pod("node-a-pod", "10.0.0.1"));

    ManagedChannel moved = channels.channel(pod("node-a-pod", "10.0.0.9"));

    assertThat(moved).isNotSameAs(old);
    assertThat(old.isShutdown()).isTrue();
    assertThat(channels.open()).containsOnlyKeys(pod("node-a-pod", "10.0.0.9"));
  }

  @Test
  void aRenewedCertificateGetsANewChannelOnceTheSecretIsReadAgain() throws IOException {
    ManagedChannel old = channels.channel(pod("node-a-pod", "10.0.0.1"));
    secret(otherCertificate());

    assertThat(channels.channel(pod("node-a-pod", "10.0.0.1"))).isSameAs(old);
    nanos.addAndGet(DriverChannels.CERTIFICATE_TTL.toNanos() + 1);
    ManagedChannel renewed = channels.channel(pod("node-a-pod", "10.0.0.1"));

    assertThat(renewed).isNotSameAs(old);
    assertThat(old.isShutdown()).isTrue();
  }

  @Test
  void theChannelOfAPodNoLongerCalledIsClosed() {
    ManagedChannel gone = channels.channel(pod("node-a-old", "10.0.0.1"));
    nanos.addAndGet(Duration.ofMinutes(5).toNanos());
    ManagedChannel kept = channels.channel(pod("node-b-pod", "10.0.0.2"));

    nanos.addAndGet(DriverChannels.FORGET_AFTER.toNanos() - Duration.ofMinutes(4).toNanos());
    channels.channel(pod("node-c-pod", "10.0.0.3"));

    assertThat(gone.isShutdown()).isTrue();
    assertThat(kept.isShutdown()).isFalse();
    assertThat(channels.open())
        .containsOnlyKeys(pod("node-b-pod", "10.0.0.2"), pod("node-c-pod", "10.0.0.3"));
  }

  @Test
  void everyBackendsDriversAreTrustedThroughTheOneSecretAndName() {
    ManagedChannel local = channels.channel(pod("node-a-pod", "10.0.0.1"));
    ManagedChannel other =
        channels.channel(new DriverEndpoint("other", "other-node-a-pod", "10.0.0.2", 9070, null));

    assertThat(List.of(local.authority(), other.authority()))
        .containsOnly(BackendNames.addonsServerName(NAMESPACE));
  }

  private static DriverEndpoint pod(String name, String host) {
    return new DriverEndpoint(BACKEND, name, host, 9070, null);
  }

  private void secret(String pem) {
    client
        .resource(ClusterFixtures.addonsTlsSecret(NAMESPACE, pem))
        .createOr(existing -> existing.update());
  }

  private static String testCertificate() throws IOException {
    return resource("/test-tls.crt");
  }

  /** Another certificate for the same name, as a renewal makes. */
  private static String otherCertificate() throws IOException {
    return resource("/test-tls-renewed.crt");
  }

  private static String resource(String name) throws IOException {
    try (InputStream in = DriverChannelsTest.class.getResourceAsStream(name)) {
      return new String(in.readAllBytes(), StandardCharsets.US_ASCII);
    }
  }
}
