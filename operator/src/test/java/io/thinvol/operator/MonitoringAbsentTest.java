package io.thinvol.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.thinvol.api.v1alpha1.StorageBackend;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Where the cluster does not serve monitoring.coreos.com (no Prometheus Operator), the operator
 * reads so, makes no PodMonitor or PrometheusRule, asks nothing of that API (a request would fail:
 * the server answers 404), and deploys and removes backends as usual.
 */
class MonitoringAbsentTest extends MockClusterTest {

  @Test
  @DisplayName("Without monitoring.coreos.com: no scrape object, rule, request or failure")
  void nothingDeployed() {
    assertThat(ClusterFacts.of(operatorClient).monitoringApi()).isFalse();
    assertThat(settings().monitoringApi()).isFalse();
    apply("metadata:\n  name: plain\n");
    namespaced(DaemonSet.class, "thinvol-plain-node");
    playDaemonSetController("thinvol-plain-node", 1, 1);
    registerDriver("node-a", "plain.thinvol.io");
    awaitReady("plain");
    client.resources(StorageBackend.class).withName("plain").delete();
    await(
        "the backend gone",
        () -> client.resources(StorageBackend.class).withName("plain").get() == null);
    assertThat(operatorDecisions())
        .as("not even an informer on the Prometheus Operator's kinds")
        .isNotEmpty()
        .noneMatch(d -> "monitoring.coreos.com".equals(d.request().group()));
  }
}
