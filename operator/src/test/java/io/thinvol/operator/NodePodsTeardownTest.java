package io.thinvol.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.thinvol.addons.MutableClock;
import io.thinvol.api.v1alpha1.StorageBackend;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** How long a teardown waits for node pods that do not stop, and what it says then. */
class NodePodsTeardownTest {

  private final MutableClock clock = new MutableClock(Instant.parse("2026-11-24T10:00:00Z"));
  private final NodePodsTeardown teardown = new NodePodsTeardown(clock);
  private final StorageBackend backend =
      Serialization.unmarshal(
          "apiVersion: thinvol.io/v1alpha1\nkind: StorageBackend\n"
              + "metadata:\n  name: local\n  uid: 0b5e\n",
          StorageBackend.class);

  @Test
  @DisplayName("No node pod left: the teardown goes on at once")
  void noPods() {
    NodePodsTeardown.Stop stop = teardown.stop(backend, List.of());
    assertThat(stop.waiting()).isFalse();
    assertThat(stop.gaveUp()).isFalse();
  }

  @Test
  @DisplayName("A pod that does not stop holds the teardown up for two minutes, then a Warning")
  void patience() {
    List<Pod> lingering =
        List.of(pod("thinvol-local-node-b", "node-b"), pod("thinvol-local-node-a", "node-a"));
    NodePodsTeardown.Stop first = teardown.stop(backend, lingering);
    assertThat(first.waiting()).isTrue();
    assertThat(first.lookAgain()).isEqualTo(NodePodsTeardown.LOOK_AGAIN);
    assertThat(first.running())
        .containsExactly("thinvol-local-node-a on node-a", "thinvol-local-node-b on node-b");

    clock.advance(Duration.ofSeconds(115));
    NodePodsTeardown.Stop last = teardown.stop(backend, lingering);
    assertThat(last.lookAgain()).as("until the patience ends").isEqualTo(Duration.ofSeconds(5));

    clock.advance(Duration.ofSeconds(5));
    NodePodsTeardown.Stop gaveUp = teardown.stop(backend, lingering);
    assertThat(gaveUp.waiting()).isFalse();
    assertThat(gaveUp.gaveUp()).isTrue();
    assertThat(NodePodsTeardown.gaveUpMessage("thinvol-system", gaveUp))
        .isEqualTo(
            "node pods still running 2 minutes after their DaemonSet was deleted:"
                + " thinvol-local-node-a on node-a, thinvol-local-node-b on node-b; their"
                + " permissions are removed now, so their sidecars' requests are refused until"
                + " they stop. A pod on a node that is gone stops only when the Node object is"
                + " deleted or the pod is deleted by force (kubectl -n thinvol-system delete pod"
                + " <pod> --grace-period=0 --force)");
  }

  @Test
  @DisplayName("Pods that stop in time: the wait ends with them, and the next one starts afresh")
  void podsStopInTime() {
    List<Pod> one = List.of(pod("thinvol-local-node-a", "node-a"));
    assertThat(teardown.stop(backend, one).waiting()).isTrue();
    clock.advance(Duration.ofSeconds(90));
    assertThat(teardown.stop(backend, List.of()).waiting()).isFalse();
    clock.advance(Duration.ofMinutes(10));
    assertThat(teardown.stop(backend, one).lookAgain()).isEqualTo(NodePodsTeardown.LOOK_AGAIN);
  }

  private static Pod pod(String name, String node) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .endMetadata()
        .withNewSpec()
        .withNodeName(node)
        .endSpec()
        .build();
  }
}
