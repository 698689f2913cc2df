package io.thinvol.operator;

import io.fabric8.kubernetes.api.model.Pod;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.DeleteControl;
import io.thinvol.api.kube.Events;
import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.api.v1alpha1.StorageBackendStatus;
import io.thinvol.operator.model.DegradedStatus;
import io.thinvol.operator.model.Settings;
import io.thinvol.operator.model.StatusModel;
import io.thinvol.operator.monitoring.NodePodsGauge;
import io.thinvol.operator.monitoring.SharedMonitoring;
import io.thinvol.operator.nodeloss.LostNodeReport;
import java.time.Clock;
import java.util.List;

/**
 * Deleting a StorageBackend: it waits while claims or volumes use the backend (removing the driver
 * would strand them); then the node pods stop, every object it created is deleted and the finalizer
 * goes.
 */
final class BackendDeletion {

  private static final int NAMED_USERS = 5;

  private final Settings settings;
  private final Clock clock;
  private final Events events;
  private final VolumesInUse volumesInUse;
  private final NodeClusterRoleBindings nodeBindings;
  private final SharedMonitoring sharedMonitoring;
  private final NodePodsGauge nodePods;
  private final LostNodeReport lostNodes;
  private final RolloutProgress rollouts;
  private final DeletionBackoff deletionBackoff = new DeletionBackoff();
  private final NodePodsTeardown nodePodsTeardown;

  BackendDeletion(
      Settings settings,
      Clock clock,
      Events events,
      VolumesInUse volumesInUse,
      NodeClusterRoleBindings nodeBindings,
      SharedMonitoring sharedMonitoring,
      NodePodsGauge nodePods,
      LostNodeReport lostNodes,
      RolloutProgress rollouts) {
    this.settings = settings;
    this.clock = clock;
    this.events = events;
    this.volumesInUse = volumesInUse;
    this.nodeBindings = nodeBindings;
    this.sharedMonitoring = sharedMonitoring;
    this.nodePods = nodePods;
    this.lostNodes = lostNodes;
    this.rollouts = rollouts;
    this.nodePodsTeardown = new NodePodsTeardown(clock);
  }

  DeleteControl cleanup(StorageBackend backend, Context<StorageBackend> context) {
    String uid = backend.getMetadata().getUid();
    List<String> users = volumesInUse.of(backend);
    if (users.isEmpty()) {
      users = volumesInUse.confirmedOf(backend, context.getClient());
    }
    if (users.isEmpty()) {
      deletionBackoff.reset(uid);
      return tearDown(backend, context);
    }
    String named =
        String.join(", ", users.subList(0, Math.min(NAMED_USERS, users.size())))
            + (users.size() > NAMED_USERS ? " and " + (users.size() - NAMED_USERS) + " more" : "");
    String message = "deletion waits until no volume uses this backend; still in use by " + named;
    StorageBackendStatus before = backend.getStatus();
    StorageBackendStatus status = DegradedStatus.deletionBlocked(backend, message, clock.instant());
    // Only a change of users is news: a retry that finds the same ones writes and says nothing.
    if (!BackendStatusWrites.same(before, status)) {
      deletionBackoff.reset(uid);
      BackendStatusWrites.write(backend, status, context);
      events.recurringWarning(backend, "DeletionBlocked", message);
    }
    return DeleteControl.noFinalizerRemoval().rescheduleAfter(deletionBackoff.next(uid));
  }

  /**
   * The node pods stop first (their DaemonSet goes, and the rest waits for them: they use the
   * permissions it removes); then every other object the backend had goes, and the finalizer.
   */
  private DeleteControl tearDown(StorageBackend backend, Context<StorageBackend> context) {
    Leftovers.removeDaemonSet(context.getClient(), backend, settings);
    NodePodsTeardown.Stop stop =
        nodePodsTeardown.stop(backend, context.getSecondaryResources(Pod.class));
    if (stop.waiting()) {
      StorageBackendStatus status =
          StatusModel.stoppingNodePods(
              backend, NodePodsTeardown.waitingMessage(backend, stop), clock.instant());
      if (!BackendStatusWrites.same(backend.getStatus(), status)) {
        BackendStatusWrites.write(backend, status, context);
      }
      return DeleteControl.noFinalizerRemoval().rescheduleAfter(stop.lookAgain());
    }
    if (stop.gaveUp()) {
      events.warning(
          backend, "NodePodsLingering", NodePodsTeardown.gaveUpMessage(settings.namespace(), stop));
    }
    Leftovers.remove(context.getClient(), backend, settings);
    nodeBindings.unbind(
        context.getClient(), settings, backend, () -> context.getPrimaryCache().list().toList());
    sharedMonitoring.removed(
        context.getClient(), settings, backend, () -> context.getPrimaryCache().list().toList());
    nodePods.forget(backend.getMetadata().getName());
    lostNodes.forget(backend);
    events.normal(backend, "Deleted", "no volume uses it any more; its objects are removed");
    rollouts.forget(backend);
    return DeleteControl.defaultDelete();
  }
}
