package io.thinvol.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.operator.model.Names;
import io.thinvol.testing.DescribedEvents;
import io.thinvol.testing.PlayedControllers;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** A driver that reports a full data dir on its pod shows up in the StorageBackend and an Event. */
class DataDirFullStatusTest extends MockClusterTest {

  private static final String MESSAGE =
      "the data dir's filesystem (/var/lib/thinvol/full) is full, 0 of 1073741824 bytes available";

  @Test
  @DisplayName(
      "A full data dir names its node in status.nodeProblems, Degraded and a Warning Event")
  void fullDataDirIsVisible() {
    StorageBackend backend = apply("metadata:\n  name: full\nspec: {}\n");
    namespaced(io.fabric8.kubernetes.api.model.apps.DaemonSet.class, "thinvol-full-node");
    playDaemonSetController("thinvol-full-node", 1, 1);
    registerDriver("node-a", "full.thinvol.io");
    Pod pod = PlayedControllers.createWithStatus(client, driverPod(backend, "node-a"));
    awaitReady("full");

    pod.getStatus()
        .getConditions()
        .add(
            new PodConditionBuilder()
                .withType("thinvol.io/DataDirFull")
                .withStatus("True")
                .withReason("DataDirFull")
                .withMessage(MESSAGE)
                .build());
    client.resource(pod).updateStatus();

    StorageBackend degraded =
        await(
            "node problems",
            () -> {
              StorageBackend now = client.resources(StorageBackend.class).withName("full").get();
              return now.getStatus().getNodeProblems() != null ? now : null;
            });
    assertThat(degraded.getStatus().getNodeProblems())
        .singleElement()
        .satisfies(
            p -> {
              assertThat(p.getNode()).isEqualTo("node-a");
              assertThat(p.getProblem()).isEqualTo(MESSAGE);
            });
    assertThat(degraded.getStatus().getConditions())
        .extracting(c -> c.getType() + "=" + c.getStatus() + "/" + c.getReason())
        .contains("Ready=True/AllNodesReady", "Degraded=True/DataDirFull");
    Event event =
        await(
            "a Degraded Event",
            () ->
                warnings().stream()
                    .filter(e -> "Degraded".equals(e.getReason()))
                    .findFirst()
                    .orElse(null));
    assertThat(event.getMessage()).contains("node-a", "data dir is full");

    pod = client.pods().inNamespace(NAMESPACE).withName(pod.getMetadata().getName()).get();
    pod.getStatus().getConditions().get(1).setStatus("False");
    client.resource(pod).updateStatus();
    StorageBackend recovered =
        await(
            "the problem gone",
            () -> {
              StorageBackend now = client.resources(StorageBackend.class).withName("full").get();
              return now.getStatus().getNodeProblems() == null ? now : null;
            });
    assertThat(recovered.getStatus().getConditions())
        .extracting(c -> c.getType() + "=" + c.getStatus())
        .contains("Degraded=False");
  }

  private List<Event> warnings() {
    return DescribedEvents.events(client, "StorageBackend", null, "full", null).stream()
        .filter(e -> "Warning".equals(e.getType()))
        .toList();
  }

  private static Pod driverPod(StorageBackend backend, String node) {
    return new PodBuilder()
        .withNewMetadata()
        .withName("thinvol-full-node-" + node)
        .withNamespace(NAMESPACE)
        .withLabels(Names.nodePodLabels(backend))
        .endMetadata()
        .withNewSpec()
        .withNodeName(node)
        .addNewContainer()
        .withName("driver")
        .withImage("thinvol")
        .endContainer()
        .endSpec()
        .withNewStatus()
        .addNewCondition()
        .withType("Ready")
        .withStatus("True")
        .endCondition()
        .addNewContainerStatus()
        .withName("driver")
        .withReady(true)
        .endContainerStatus()
        .endStatus()
        .build();
  }
}
