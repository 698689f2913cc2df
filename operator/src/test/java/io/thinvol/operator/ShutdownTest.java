package io.thinvol.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.thinvol.testing.TestCluster;
import java.net.URI;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * SIGTERM while the API server is going away: the operator, leading, stops within the 10 s the
 * kubelet gives before SIGKILL. The shutdown hook's path ({@link OperatorMain#closeWithin}) with
 * the real runner, leader election on, against an API server that has stopped answering it (it
 * reaches the server through a relay that vanishes; the server serves the other tests on).
 */
class ShutdownTest extends MockClusterTest {

  private VanishingApiServer server;

  @Override
  KubernetesClient connectOperator() {
    server = new VanishingApiServer(URI.create(client.getMasterUrl().toString()));
    return new KubernetesClientBuilder()
        .withConfig(
            new ConfigBuilder(
                    TestCluster.impersonating(
                        client.getConfiguration(), TestCluster.OPERATOR, NAMESPACE))
                .withMasterUrl(server.url(client.getMasterUrl().getProtocol()))
                .build())
        .build();
  }

  @AfterEach
  void closeRelay() {
    server.close();
  }

  @Test
  void stopsWithinTenSecondsWhenTheApiServerIsGone() {
    await("the operator leading", leading::get);
    server.vanish();

    long start = System.nanoTime();
    OperatorMain.closeWithin(OperatorMain.SHUTDOWN_BUDGET, operator, operatorClient);
    Duration stopped = Duration.ofNanos(System.nanoTime() - start);

    System.out.println("stopped in " + stopped.toMillis() + " ms with the API server gone");
    assertThat(stopped).isLessThan(Duration.ofSeconds(10));
    // Stopping on purpose ends the leadership; that is no loss for the fixture to report.
    lostLeadership.set(false);
  }
}
