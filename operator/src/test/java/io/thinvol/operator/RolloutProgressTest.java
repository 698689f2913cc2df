package io.thinvol.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.DaemonSetBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.api.v1alpha1.StorageBackendStatus;
import io.thinvol.operator.model.StatusModel;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** A rollout is given ten minutes without progress before its status calls it stalled. */
class RolloutProgressTest {

  private static final Instant START = Instant.parse("2026-11-24T10:00:00Z");

  private final StorageBackend backend =
      Serialization.unmarshal(
          "apiVersion: thinvol.io/v1alpha1\nkind: StorageBackend\n"
              + "metadata:\n  name: local\n  uid: 0b5e\n  generation: 1\n",
          StorageBackend.class);

  /** The status of a rollout with {@code ready} of three nodes ready and updated. */
  private StorageBackendStatus rolling(int ready, Instant now) {
    DaemonSet daemonSet =
        new DaemonSetBuilder()
            .withNewMetadata()
            .withName("thinvol-local-node")
            .withGeneration(2L)
            .endMetadata()
            .withNewStatus()
            .withObservedGeneration(2L)
            .withDesiredNumberScheduled(3)
            .withNumberReady(ready)
            .withUpdatedNumberScheduled(ready)
            .endStatus()
            .build();
    return StatusModel.of(backend, Optional.of(daemonSet), Set.of(), List.of(), now);
  }

  private String conditions(StorageBackendStatus status) {
    return status.getConditions().stream()
        .map(c -> c.getType() + "=" + c.getStatus() + "/" + c.getReason())
        .toList()
        .toString();
  }

  @Test
  @DisplayName("Ten minutes without a node more ready: Progressing=False, Degraded=True")
  void stalls() {
    RolloutProgress rollouts = new RolloutProgress();
    assertThat(StatusModel.isProgressing(rollouts.judge(backend, rolling(1, START), START)))
        .isTrue();
    Instant late = START.plus(RolloutProgress.DEADLINE).minusSeconds(1);
    assertThat(StatusModel.isProgressing(rollouts.judge(backend, rolling(1, late), late))).isTrue();
    Instant deadline = START.plus(RolloutProgress.DEADLINE);
    StorageBackendStatus stalled = rollouts.judge(backend, rolling(1, deadline), deadline);
    assertThat(conditions(stalled))
        .isEqualTo(
            "[Ready=False/NodesNotReady, Progressing=False/ProgressDeadlineExceeded,"
                + " Degraded=True/ProgressDeadlineExceeded]");
    assertThat(StatusModel.message(stalled, StatusModel.DEGRADED))
        .isEqualTo(
            "no progress for 10 minutes: 1 of 3 nodes ready, 1 updated; the pods of DaemonSet"
                + " thinvol-local-node say why");
  }

  @Test
  @DisplayName("A node more ready is progress: the ten minutes start again")
  void progressRestartsTheClock() {
    RolloutProgress rollouts = new RolloutProgress();
    rollouts.judge(backend, rolling(0, START), START);
    Instant later = START.plus(Duration.ofMinutes(8));
    rollouts.judge(backend, rolling(1, later), later);
    Instant after = START.plus(Duration.ofMinutes(16));
    assertThat(StatusModel.isProgressing(rollouts.judge(backend, rolling(1, after), after)))
        .isTrue();
  }

  @Test
  @DisplayName("A restarted operator keeps a stalled rollout stalled")
  void stalledSurvivesARestart() {
    Instant deadline = START.plus(RolloutProgress.DEADLINE);
    RolloutProgress before = new RolloutProgress();
    before.judge(backend, rolling(1, START), START);
    backend.setStatus(before.judge(backend, rolling(1, deadline), deadline));

    Instant restarted = deadline.plus(Duration.ofMinutes(1));
    StorageBackendStatus judged =
        new RolloutProgress().judge(backend, rolling(1, restarted), restarted);
    assertThat(StatusModel.reason(judged, StatusModel.PROGRESSING))
        .isEqualTo(StatusModel.PROGRESS_DEADLINE_EXCEEDED);
  }
}
