package io.thinvol.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.api.v1alpha1.StorageBackendSpec;
import io.thinvol.operator.model.StatusModel;
import io.thinvol.testing.DescribedEvents;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * A deploy and a rollout are news, not warnings: every one of them showed {@code Warning NotReady:
 * the node plugin is being deployed} in {@code kubectl describe sb}.
 */
class RolloutEventsTest extends MockClusterTest {

  @Test
  @DisplayName("A rollout after a spec change is a Normal Event, and so is Ready again")
  void aRolloutIsNoWarning() {
    apply("metadata:\n  name: roll\nspec:\n  logLevel: INFO\n");
    DaemonSet first = namespaced(DaemonSet.class, "thinvol-roll-node");
    playDaemonSetController("thinvol-roll-node", 1, 1);
    registerDriver("node-a", "roll.thinvol.io");
    awaitReady("roll");

    editSpec("roll", spec -> spec.setLogLevel(StorageBackendSpec.LogLevel.DEBUG));
    await(
        "a new pod template",
        () -> {
          DaemonSet now =
              client
                  .resources(DaemonSet.class)
                  .inNamespace(NAMESPACE)
                  .withName("thinvol-roll-node")
                  .get();
          return now.getMetadata().getGeneration() > first.getMetadata().getGeneration();
        });
    await(
        "Ready=False/Deploying",
        () ->
            StatusModel.message(status(), StatusModel.READY)
                .equals("the node plugin is being deployed"));
    Event rollout = await("the rollout's Event", () -> all().size() > 1 ? all().get(1) : null);
    assertThat(rollout.getType() + " " + rollout.getReason() + ": " + rollout.getMessage())
        .isEqualTo("Normal Deploying: the node plugin is being deployed");
    playDaemonSetController("thinvol-roll-node", 1, 1);
    awaitReady("roll");
    await("the second Ready Event", () -> events("Ready").size() == 2);
    assertThat(all())
        .extracting(e -> e.getType() + " " + e.getReason())
        .containsExactly("Normal Ready", "Normal Deploying", "Normal Ready");
  }

  private io.thinvol.api.v1alpha1.StorageBackendStatus status() {
    StorageBackend now = client.resources(StorageBackend.class).withName("roll").get();
    return now.getStatus();
  }

  private List<Event> all() {
    StorageBackend now = client.resources(StorageBackend.class).withName("roll").get();
    return DescribedEvents.events(
        client, "StorageBackend", null, "roll", now.getMetadata().getUid());
  }

  private List<Event> events(String reason) {
    return all().stream().filter(e -> reason.equals(e.getReason())).toList();
  }
}
