package io.thinvol.operator.model;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.DaemonSetBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.api.v1alpha1.StorageBackendStatus;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** A node pod that cannot start is a failure at once; one still starting is a rollout. */
class FailingNodePodsTest {

  private static final StorageBackend BACKEND =
      Serialization.unmarshal(
          "apiVersion: thinvol.io/v1alpha1\nkind: StorageBackend\nmetadata:\n  name: local\n",
          StorageBackend.class);
  private static final DaemonSet ROLLING =
      new DaemonSetBuilder()
          .withNewMetadata()
          .withName("thinvol-local-node")
          .withGeneration(1L)
          .endMetadata()
          .withNewStatus()
          .withObservedGeneration(1L)
          .withDesiredNumberScheduled(1)
          .withNumberReady(0)
          .withUpdatedNumberScheduled(1)
          .endStatus()
          .build();

  private static StorageBackendStatus withDriver(String waiting, int restarts) {
    Pod pod =
        new PodBuilder()
            .withNewMetadata()
            .withName("thinvol-local-node-x")
            .endMetadata()
            .withNewSpec()
            .withNodeName("node-a")
            .endSpec()
            .withNewStatus()
            .addNewContainerStatus()
            .withName("driver")
            .withReady(false)
            .withRestartCount(restarts)
            .withNewState()
            .withNewWaiting()
            .withReason(waiting)
            .endWaiting()
            .endState()
            .endContainerStatus()
            .endStatus()
            .build();
    return StatusModel.of(
        BACKEND,
        Optional.of(ROLLING),
        Set.of(),
        List.of(pod),
        Instant.parse("2026-11-24T10:00:00Z"));
  }

  @Test
  @DisplayName("An image that cannot be pulled: Degraded=True/NodePodsFailing")
  void imagePull() {
    StorageBackendStatus status = withDriver("ImagePullBackOff", 0);
    assertThat(StatusModel.isDegraded(status)).isTrue();
    assertThat(StatusModel.reason(status, StatusModel.READY)).isEqualTo("NodePodsFailing");
    assertThat(StatusModel.message(status, StatusModel.DEGRADED))
        .isEqualTo("the driver pods fail on [node-a]; see status.nodeProblems");
  }

  @Test
  @DisplayName("A container still starting, or restarted once or twice, is a rollout under way")
  void starting() {
    assertThat(StatusModel.isProgressing(withDriver("ContainerCreating", 0))).isTrue();
    assertThat(StatusModel.isProgressing(withDriver("CrashLoopBackOff", 2))).isTrue();
  }

  @Test
  @DisplayName("A crash loop beyond the start-up restarts is a failure")
  void crashLoop() {
    StorageBackendStatus status = withDriver("CrashLoopBackOff", 3);
    assertThat(StatusModel.isProgressing(status)).isFalse();
    assertThat(StatusModel.reason(status, StatusModel.DEGRADED)).isEqualTo("NodePodsFailing");
  }
}
