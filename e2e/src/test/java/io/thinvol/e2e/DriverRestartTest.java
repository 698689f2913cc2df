package io.thinvol.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.thinvol.e2e.support.Names;
import io.thinvol.e2e.support.NodePods;
import io.thinvol.e2e.support.OlmBundle;
import io.thinvol.e2e.support.OperatorLeader;
import io.thinvol.e2e.support.Resources;
import io.thinvol.e2e.support.Waits;
import java.net.MalformedURLException;
import java.net.URL;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/** The node pod replaced under a mounted volume; the operator replaced under the node pods. */
@Order(10)
class DriverRestartTest extends E2eSteps {

  private static final Duration RESTART_LIMIT = Duration.ofMinutes(3);
  private static final List<String> FILES =
      List.of(ReclaimTest.KEEP, "/data/before-restart", "/data/after-restart");

  @Test
  @Order(1)
  @DisplayName("the driver pod deleted under a mounted, written volume")
  void driverPodDeleted() {
    world().require("data.handle");
    String writer = ReclaimTest.WRITER;
    pods().awaitReady(writer);
    pods()
        .sh(writer, "dd if=/dev/urandom of=/data/before-restart bs=1M count=8 2>/dev/null && sync");
    String before = pods().sha256(writer, "/data/before-restart");
    Pod old = NodePods.onHost(client());
    long start = System.nanoTime();
    client().resource(old).delete();
    Pod replacement =
        Waits.until(
            "a new node pod to be Ready",
            RESTART_LIMIT,
            () ->
                NodePods.all(client()).stream()
                    .filter(p -> !p.getMetadata().getUid().equals(old.getMetadata().getUid()))
                    .filter(p -> old.getSpec().getNodeName().equals(p.getSpec().getNodeName()))
                    .filter(
                        p ->
                            p.getStatus().getContainerStatuses().stream()
                                .allMatch(c -> Boolean.TRUE.equals(c.getReady())))
                    .findFirst());
    String readyIn = seconds(start);
    Waits.untilTrue(
        "the old node pod to be gone",
        RESTART_LIMIT,
        () ->
            NodePods.all(client()).stream()
                .noneMatch(p -> p.getMetadata().getUid().equals(old.getMetadata().getUid())));
    assertThat(pods().sha256(writer, "/data/before-restart")).isEqualTo(before);
    assertThat(pods().sha256(writer, ReclaimTest.KEEP))
        .isEqualTo(world().require("data.keep.sha256"));
    pods()
        .sh(writer, "dd if=/dev/urandom of=/data/after-restart bs=1M count=8 2>/dev/null && sync");
    String[] sums = checksums(writer);
    pods().delete(writer);
    pods().mounting(writer, Map.of(ReclaimTest.DATA, "/data"));
    assertThat(checksums(writer)).containsExactly(sums);
    figure(
        "node pod "
            + replacement.getMetadata().getName()
            + " Ready in "
            + readyIn
            + "; the mounted volume kept serving (read and written); the new driver staged it again, 3 files' sha256 equal");
  }

  @Test
  @Order(2)
  @DisplayName("operator upgrade to another operator image leaves the node pods alone")
  void operatorUpgrade() {
    String deployment = world().require("operator.deployment");
    requireBackend();
    Optional<String> next = world().settings().nextImage();
    Assumptions.assumeTrue(
        next.isPresent(), "no -Dthinvol.e2e.nextImage: no other operator image to upgrade to");
    // The previous step replaced the node pod: the backend is Ready again before the upgrade, so
    // that what the upgrade does to its status is told apart from that.
    Map<String, Object> readyBefore =
        condition(awaitBackendReady(Names.BACKEND, RESTART_LIMIT), "Ready").orElseThrow();
    DaemonSet daemonSet = daemonSet();
    Pod nodePod = NodePods.onHost(client());
    long start = System.nanoTime();
    new OlmBundle(kube(), world().settings().repository()).upgrade(deployment, next.get());
    Pod operator =
        Waits.until(
            "the new operator pod to hold the lease",
            RESTART_LIMIT,
            () ->
                new OperatorLeader(client())
                    .leader()
                    .filter(p -> p.getSpec().getContainers().get(0).getImage().equals(next.get())));
    Waits.untilTrue(
        "the new operator to reconcile the StorageBackend",
        RESTART_LIMIT,
        () -> metric(operator, "thinvol_operator_reconciliations_total") >= 1);
    String upgradedIn = seconds(start);
    DaemonSet after = daemonSet();
    assertThat(after.getMetadata().getGeneration())
        .isEqualTo(daemonSet.getMetadata().getGeneration());
    assertThat(after.getSpec().getTemplate()).isEqualTo(daemonSet.getSpec().getTemplate());
    assertThat(NodePods.onHost(client()).getMetadata().getUid())
        .isEqualTo(nodePod.getMetadata().getUid());
    assertThat(condition(get(Resources.STORAGE_BACKEND, null, Names.BACKEND), "Ready"))
        .as("Ready never left True during the upgrade (the same transition)")
        .hasValue(readyBefore);
    figure(
        "operator "
            + operator.getMetadata().getName()
            + " leads and reconciled after "
            + upgradedIn
            + "; DaemonSet generation "
            + after.getMetadata().getGeneration()
            + " and template unchanged, node pod not restarted");
  }

  private static String[] checksums(String pod) {
    return FILES.stream().map(f -> pods().sha256(pod, f)).toArray(String[]::new);
  }

  private static DaemonSet daemonSet() {
    return client()
        .apps()
        .daemonSets()
        .inNamespace(Names.OPERATOR)
        .withName(Names.NODE_DAEMON_SET)
        .get();
  }

  /** The sum of a counter's series on the operator's /metrics, through the API server's proxy. */
  private static double metric(Pod operator, String name) {
    String path =
        "api/v1/namespaces/"
            + Names.OPERATOR
            + "/pods/"
            + operator.getMetadata().getName()
            + ":8081/proxy/metrics";
    String text;
    try {
      text = client().raw(new URL(client().getMasterUrl(), path).toString());
    } catch (MalformedURLException e) {
      throw new IllegalStateException(e);
    }
    return text == null
        ? 0
        : text.lines()
            .filter(l -> l.startsWith(name + "{") || l.startsWith(name + " "))
            .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
            .sum();
  }
}
