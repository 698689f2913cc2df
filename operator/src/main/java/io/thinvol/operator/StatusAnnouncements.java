package io.thinvol.operator;

import io.thinvol.api.kube.Events;
import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.api.v1alpha1.StorageBackendStatus;
import io.thinvol.operator.model.StatusModel;

/**
 * The Events of a backend's status changes, for {@code kubectl describe sb}. A rollout is news but
 * no problem: leaving Ready for one (a new spec, a new driver image) is a Normal Event named after
 * its progress reason. A Warning means a person should look: Ready lost with nothing under way to
 * bring it back ({@code NotReady}), or a new reason to be Degraded (a rollout that stopped making
 * progress, failing pods, a refused spec).
 */
final class StatusAnnouncements {

  private final Events events;

  StatusAnnouncements(Events events) {
    this.events = events;
  }

  void announce(StorageBackend backend, StorageBackendStatus before, StorageBackendStatus next) {
    boolean wasReady = before != null && StatusModel.isReady(before);
    boolean ready = StatusModel.isReady(next);
    String readiness = StatusModel.message(next, StatusModel.READY);
    if (ready && !wasReady) {
      events.normal(backend, "Ready", readiness);
    } else if (!ready && wasReady && StatusModel.isProgressing(next)) {
      events.normal(backend, StatusModel.reason(next, StatusModel.PROGRESSING), readiness);
    } else if (!ready && wasReady) {
      events.warning(backend, "NotReady", readiness);
    }
    // A new reason to be degraded is news too, not only the first one.
    if (StatusModel.isDegraded(next)
        && (before == null
            || !StatusModel.isDegraded(before)
            || !StatusModel.message(before, StatusModel.DEGRADED)
                .equals(StatusModel.message(next, StatusModel.DEGRADED)))) {
      events.warning(backend, "Degraded", StatusModel.message(next, StatusModel.DEGRADED));
    }
  }
}
