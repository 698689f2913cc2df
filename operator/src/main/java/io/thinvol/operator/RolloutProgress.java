package io.thinvol.operator;

import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.api.v1alpha1.StorageBackendStatus;
import io.thinvol.operator.model.StatusModel;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Tells a slow rollout from a stuck one: a rollout (Progressing=True) whose state (the Ready
 * condition's message: nodes ready, updated, registered) has not changed for {@link #DEADLINE} is
 * stalled, and its status says so. Kept in memory: a restarted operator gives a rollout a new
 * deadline, except one its predecessor had already found stalled.
 */
final class RolloutProgress {

  /** As a Deployment's default progressDeadlineSeconds: a node pod starts in seconds. */
  static final Duration DEADLINE = Duration.ofMinutes(10);

  private record Seen(String state, Instant since) {}

  private final Map<String, Seen> seen = new ConcurrentHashMap<>();

  /** The status to write: {@code status} as it is, or stalled. */
  StorageBackendStatus judge(StorageBackend backend, StorageBackendStatus status, Instant now) {
    String uid = backend.getMetadata().getUid();
    if (!StatusModel.isProgressing(status)) {
      seen.remove(uid);
      return status;
    }
    String state = StatusModel.message(status, StatusModel.READY);
    Seen last =
        seen.compute(
            uid,
            (key, before) ->
                before != null && before.state().equals(state)
                    ? before
                    : new Seen(
                        state, before == null && wasStalled(backend, state) ? Instant.MIN : now));
    return last.since().isAfter(now.minus(DEADLINE))
        ? status
        : StatusModel.stalled(backend, status, DEADLINE, now);
  }

  /** The backend is gone. */
  void forget(StorageBackend backend) {
    seen.remove(backend.getMetadata().getUid());
  }

  private static boolean wasStalled(StorageBackend backend, String state) {
    StorageBackendStatus written = backend.getStatus();
    return written != null
        && StatusModel.PROGRESS_DEADLINE_EXCEEDED.equals(
            StatusModel.reason(written, StatusModel.PROGRESSING))
        && StatusModel.message(written, StatusModel.READY).equals(state);
  }
}
