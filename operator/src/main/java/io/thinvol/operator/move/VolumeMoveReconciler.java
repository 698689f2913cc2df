package io.thinvol.operator.move;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.api.reconciler.Cleaner;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.DeleteControl;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.PrimaryUpdateAndCacheUtils;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.thinvol.addons.call.MoveCopier;
import io.thinvol.api.kube.Events;
import io.thinvol.api.v1alpha1.MovePhase;
import io.thinvol.api.v1alpha1.VolumeMove;
import io.thinvol.operator.model.OperatorRbac;
import io.thinvol.operator.model.Settings;
import io.thinvol.operator.transfer.DriverEndpoints;
import io.thinvol.operator.transfer.TargetChoice;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.slf4j.MDC;

/**
 * Runs VolumeMoves (docs/moves.md): Pending, PreCopying, WaitingForCutOver, CuttingOver, then
 * Succeeded or Failed. Each reconcile reads what exists and goes on from the move's phase, so an
 * operator killed anywhere resumes; the finalizer lets a move deleted during its cut-over finish or
 * roll back first. The waits are short polls while a move copies or cuts over, and a poll of the
 * claim's namespace while it waits for the claim to be unused; a copy's end and a freed copy slot
 * wake a move at once.
 */
@ControllerConfiguration(name = "volumemove", finalizerName = MoveNames.FINALIZER)
public class VolumeMoveReconciler implements Reconciler<VolumeMove>, Cleaner<VolumeMove> {

  private final MoveServices services;
  private final KnownMoves moves;

  public VolumeMoveReconciler(
      KubernetesClient client, Settings settings, MoveCopier copier, Events events, Clock clock) {
    this.moves = new KnownMoves();
    MoveCluster cluster = new MoveCluster(client);
    this.services =
        new MoveServices(
            cluster,
            new CopyCalls(copier),
            new DriverEndpoints(client, settings.namespace()),
            new TargetChoice(client, settings.namespace()),
            moves,
            new CopySlots(moves),
            new MoveNodes(client),
            events,
            settings,
            "system:serviceaccount:" + settings.namespace() + ":" + OperatorRbac.SERVICE_ACCOUNT,
            clock);
  }

  @Override
  public List<EventSource<?, VolumeMove>> prepareEventSources(
      EventSourceContext<VolumeMove> context) {
    moves.readFrom(() -> context.getPrimaryCache().list());
    return List.of(services.calls().wakeUps(), services.nodes().eventSource(context));
  }

  @Override
  public UpdateControl<VolumeMove> reconcile(VolumeMove resource, Context<VolumeMove> context) {
    if (MoveStatusModel.ended(resource)) {
      return UpdateControl.noUpdate();
    }
    Optional<Duration> wait = advance(resource, context, false);
    UpdateControl<VolumeMove> control = UpdateControl.noUpdate();
    return wait.map(control::rescheduleAfter).orElse(control);
  }

  @Override
  public DeleteControl cleanup(VolumeMove resource, Context<VolumeMove> context) {
    if (MoveStatusModel.ended(resource)) {
      return DeleteControl.defaultDelete();
    }
    Optional<Duration> wait = advance(resource, context, true);
    return wait.isEmpty()
        ? DeleteControl.defaultDelete()
        : DeleteControl.noFinalizerRemoval().rescheduleAfter(wait.get());
  }

  private Optional<Duration> advance(
      VolumeMove resource, Context<VolumeMove> context, boolean leaving) {
    MDC.put(
        "volumemove",
        resource.getMetadata().getNamespace() + "/" + resource.getMetadata().getName());
    try {
      MovePhase before = MoveStatusModel.phase(resource);
      Move move =
          new Move(
              services,
              resource,
              (current, status) ->
                  PrimaryUpdateAndCacheUtils.updateStatusAndCacheResource(
                      current,
                      context,
                      fresh -> {
                        fresh.setStatus(status);
                        return fresh;
                      }));
      Optional<Duration> wait = MoveDriver.advance(move, leaving);
      String source = move.status().getSourceNode();
      if (source != null
          && MoveStatusModel.COPYING.contains(before)
          && !MoveStatusModel.COPYING.contains(move.phase())) {
        services.slots().waiting(source).forEach(services.calls().wakeUps()::propagateEvent);
      }
      return wait;
    } finally {
      MDC.remove("volumemove");
    }
  }
}
