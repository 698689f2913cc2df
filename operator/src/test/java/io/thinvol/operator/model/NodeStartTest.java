package io.thinvol.operator.model;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.thinvol.api.v1alpha1.StorageBackend;
import java.util.List;
import java.util.Objects;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * How soon a node pod serves: what the kubelet waits for between starting the node pod's containers
 * and counting it Ready (bench/node-start-bench.sh measures it on a real node).
 */
class NodeStartTest {

  private static final StorageBackend BACKEND =
      Serialization.unmarshal(
          "apiVersion: thinvol.io/v1alpha1\nkind: StorageBackend\nmetadata:\n  name: local\n",
          StorageBackend.class);

  private static List<Container> containers() {
    return NodeDaemonSetModel.desired(BACKEND, ModelTest.SETTINGS, true)
        .getSpec()
        .getTemplate()
        .getSpec()
        .getContainers();
  }

  @Test
  @DisplayName(
      "The driver starts first and its startup probe asks /healthz every second, for two minutes")
  void theDriverIsProbedEverySecondUntilItServes() {
    Container driver = containers().get(0);
    assertThat(driver.getName()).isEqualTo("driver");
    Probe startup = driver.getStartupProbe();
    assertThat(startup.getHttpGet().getPath())
        .as("alive, not ready: a driver with an unusable data dir keeps running, not ready")
        .isEqualTo("/healthz");
    assertThat(startup.getHttpGet().getPort().getStrVal())
        .as("the driver's own port, not the livenessprobe sidecar's")
        .isEqualTo(NodeDaemonSetModel.HTTP_PORT_NAME);
    assertThat(startup.getPeriodSeconds()).isEqualTo(1);
    assertThat(startup.getTimeoutSeconds()).isEqualTo(1);
    assertThat(startup.getPeriodSeconds() * startup.getFailureThreshold()).isEqualTo(120);
    assertThat(driver.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/readyz");
  }

  @Test
  @DisplayName("No probe waits out an initial delay: the startup probe holds the others back")
  void noProbeHasAnInitialDelay() {
    List<Probe> probes =
        containers().stream()
            .flatMap(
                c -> Stream.of(c.getStartupProbe(), c.getLivenessProbe(), c.getReadinessProbe()))
            .filter(Objects::nonNull)
            .toList();
    assertThat(probes).hasSizeGreaterThanOrEqualTo(4);
    // Unset, not 0: the API server stores no zero initial delay (ProbeDefaults in the fixture).
    assertThat(probes).allSatisfy(p -> assertThat(p.getInitialDelaySeconds()).isNull());
    assertThat(containers().stream().skip(1).map(Container::getReadinessProbe))
        .as("a sidecar counts as ready once started: only the driver decides the pod's readiness")
        .containsOnlyNulls();
  }
}
