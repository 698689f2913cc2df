package io.thinvol.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * SIGTERM while the API server is going away: the operator, leading, stops within the 10 s the
 * kubelet gives before SIGKILL. The shutdown hook's path ({@link OperatorMain#closeWithin}) with
 * the real runner, leader election on, against an API server that has stopped answering.
 */
@EnableKubernetesMockClient(crud = true)
class ShutdownTest {

  KubernetesClient client;
  KubernetesMockServer server;

  @Test
  void stopsWithinTenSecondsWhenTheApiServerIsGone() throws Exception {
    LeaderElectionRbacTest.answerRulesReviewFromTheModel(server);
    KubernetesClient operatorClient =
        new KubernetesClientBuilder()
            .withConfig(
                new ConfigBuilder(client.getConfiguration())
                    .withNamespace(MockClusterTest.NAMESPACE)
                    .build())
            .build();
    OperatorRunner runner =
        OperatorRunner.start(
            operatorClient,
            MockClusterTest.SETTINGS,
            true,
            -1,
            MockClusterTest.noDriverCalls(),
            MockClusterTest.withoutServerSideApply());
    MockClusterTest.await(
        "the operator leading",
        () ->
            client
                    .resources(Lease.class)
                    .inNamespace(MockClusterTest.NAMESPACE)
                    .withName(OperatorRunner.LEASE)
                    .get()
                != null);
    server.shutdown();

    long start = System.nanoTime();
    OperatorMain.closeWithin(OperatorMain.SHUTDOWN_BUDGET, runner, operatorClient);
    Duration stopped = Duration.ofNanos(System.nanoTime() - start);

    System.out.println("stopped in " + stopped.toMillis() + " ms with the API server gone");
    assertThat(stopped).isLessThan(Duration.ofSeconds(10));
  }
}
