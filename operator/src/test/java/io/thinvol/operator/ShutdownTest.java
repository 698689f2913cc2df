package io.thinvol.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * SIGTERM while the API server is going away: the operator, leading, stops within the 10 s the
 * kubelet gives before SIGKILL. The shutdown hook's path ({@link OperatorMain#closeWithin}) with
 * the real runner, leader election on, against an API server that has stopped answering.
 */
class ShutdownTest extends MockClusterTest {

  @Test
  void stopsWithinTenSecondsWhenTheApiServerIsGone() {
    assumeTrue(
        cluster.strict().isPresent(),
        "mock only: the test stops the API server itself, which a shared real one cannot");
    await("the operator leading", leading::get);
    cluster.close();

    long start = System.nanoTime();
    OperatorMain.closeWithin(OperatorMain.SHUTDOWN_BUDGET, operator, operatorClient);
    Duration stopped = Duration.ofNanos(System.nanoTime() - start);

    System.out.println("stopped in " + stopped.toMillis() + " ms with the API server gone");
    assertThat(stopped).isLessThan(Duration.ofSeconds(10));
    // Stopping on purpose ends the leadership; that is no loss for the fixture to report.
    lostLeadership.set(false);
  }
}
