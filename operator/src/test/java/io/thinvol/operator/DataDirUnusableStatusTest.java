package io.thinvol.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.DaemonSetStatusBuilder;
import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.operator.model.Names;
import io.thinvol.testing.DescribedEvents;
import io.thinvol.testing.PlayedControllers;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * A driver whose data dir cannot take images (its dedicated mount missing) is not ready and says
 * why on its pod; the StorageBackend names the node with that reason and a Warning Event says it.
 */
class DataDirUnusableStatusTest extends MockClusterTest {

  private static final String MESSAGE =
      "the data dir /var/lib/thinvol/disk is meant to be a dedicated mount"
          + " (spec.sparseFile.dedicatedMount) but no filesystem is mounted there";

  @Test
  @DisplayName("A missing dedicated mount shows in status.nodeProblems, Degraded and an Event")
  void missingMountIsVisible() {
    StorageBackend backend =
        apply("metadata:\n  name: disk\nspec:\n  sparseFile:\n    dedicatedMount: true\n");
    DaemonSet daemonSet = namespaced(DaemonSet.class, "thinvol-disk-node");
    assertThat(daemonSet.getSpec().getTemplate().getSpec().getContainers().get(0).getArgs())
        .contains("--data-dir-dedicated-mount=true");
    registerDriver("node-a", "disk.thinvol.io");
    PlayedControllers.createWithStatus(
        client,
        new PodBuilder()
            .withNewMetadata()
            .withName("thinvol-disk-node-a")
            .withNamespace(NAMESPACE)
            .withLabels(Names.nodePodLabels(backend))
            .endMetadata()
            .withNewSpec()
            .withNodeName("node-a")
            .addNewContainer()
            .withName("driver")
            .withImage("thinvol")
            .endContainer()
            .endSpec()
            .withNewStatus()
            .addNewCondition()
            .withType("Ready")
            .withStatus("False")
            .endCondition()
            .addNewCondition()
            .withType("thinvol.io/DataDirUnusable")
            .withStatus("True")
            .withReason("DedicatedMountMissing")
            .withMessage(MESSAGE)
            .endCondition()
            .addNewContainerStatus()
            .withName("driver")
            .withReady(false)
            .endContainerStatus()
            .endStatus()
            .build());
    DaemonSet current = namespaced(DaemonSet.class, "thinvol-disk-node");
    current.setStatus(
        new DaemonSetStatusBuilder()
            .withDesiredNumberScheduled(1)
            .withNumberReady(0)
            .withNumberAvailable(0)
            .withUpdatedNumberScheduled(1)
            .withCurrentNumberScheduled(1)
            .withNumberMisscheduled(0)
            .withObservedGeneration(current.getMetadata().getGeneration())
            .build());
    client.resource(current).updateStatus();

    StorageBackend reported =
        await(
            "node problems",
            () -> {
              // the node problems and the conditions come from one status write, but a write
              // made before the DaemonSet's status was observed carries the problems alone
              StorageBackend now = client.resources(StorageBackend.class).withName("disk").get();
              return now.getStatus() != null
                      && now.getStatus().getNodeProblems() != null
                      && now.getStatus().getConditions().stream()
                          .anyMatch(c -> "DataDirUnusable".equals(c.getReason()))
                  ? now
                  : null;
            });
    assertThat(reported.getStatus().getNodeProblems())
        .singleElement()
        .satisfies(
            p -> {
              assertThat(p.getNode()).isEqualTo("node-a");
              assertThat(p.getProblem()).isEqualTo("driver pod thinvol-disk-node-a: " + MESSAGE);
            });
    assertThat(reported.getStatus().getConditions())
        .extracting(c -> c.getType() + "=" + c.getStatus() + "/" + c.getReason())
        .contains("Ready=False/DataDirUnusable", "Degraded=True/DataDirUnusable");
    Event event =
        await(
            "a Degraded Event",
            () ->
                DescribedEvents.events(client, "StorageBackend", null, "disk", null).stream()
                    .filter(e -> "Warning".equals(e.getType()))
                    .filter(e -> "Degraded".equals(e.getReason()))
                    .findFirst()
                    .orElse(null));
    assertThat(event.getMessage()).contains("node-a", "cannot take volumes", "dedicated mount");
  }
}
