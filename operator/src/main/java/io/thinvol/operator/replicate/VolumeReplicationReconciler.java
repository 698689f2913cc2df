package io.thinvol.operator.replicate;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Cleaner;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.DeleteControl;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.PrimaryUpdateAndCacheUtils;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import io.thinvol.addons.call.MoveCopier;
import io.thinvol.api.kube.Events;
import io.thinvol.api.v1alpha1.VolumeMove;
import io.thinvol.api.v1alpha1.VolumeReplication;
import io.thinvol.api.v1alpha1.VolumeReplicationStatus;
import io.thinvol.operator.model.Settings;
import io.thinvol.operator.transfer.DriverEndpoints;
import io.thinvol.operator.transfer.InFlightCalls;
import io.thinvol.operator.transfer.NodeFence;
import io.thinvol.operator.transfer.TargetChoice;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.slf4j.MDC;

/**
 * Runs VolumeReplications (docs/replication.md): a sync every interval of the class, a failover
 * when the claim's node is fenced, a switchover when asked, the stale copy of a failover dealt with
 * when its node returns. Each reconcile reads what exists and goes on, so an operator killed
 * anywhere resumes. Woken by the end of a sync's calls, by its VolumeMoves, and by the changes of
 * its nodes that matter (a taint, readiness, deletion).
 */
@ControllerConfiguration(name = "volumereplication", finalizerName = VolumeReplication.FINALIZER)
public class VolumeReplicationReconciler
    implements Reconciler<VolumeReplication>, Cleaner<VolumeReplication> {

  private final ReplicationServices services;

  public VolumeReplicationReconciler(
      KubernetesClient client,
      Settings settings,
      MoveCopier copier,
      Events events,
      ReplicationMetrics metrics,
      Clock clock) {
    this.services =
        new ReplicationServices(
            client,
            new InFlightCalls<>("replication-wake-ups"),
            copier,
            new DriverEndpoints(client, settings.namespace()),
            new TargetChoice(client, settings.namespace()),
            new NodeFence(client),
            metrics,
            events,
            clock);
  }

  @Override
  public List<EventSource<?, VolumeReplication>> prepareEventSources(
      EventSourceContext<VolumeReplication> context) {
    InformerEventSource<VolumeMove, VolumeReplication> moves =
        new InformerEventSource<>(
            InformerEventSourceConfiguration.from(VolumeMove.class, VolumeReplication.class)
                .withName("replication-moves")
                .withLabelSelector(ReplicationNames.LABEL)
                .withSecondaryToPrimaryMapper(
                    move ->
                        Set.of(
                            new ResourceID(
                                move.getMetadata().getLabels().get(ReplicationNames.LABEL),
                                move.getMetadata().getNamespace())))
                .build(),
            context);
    InformerEventSource<Node, VolumeReplication> nodes =
        new InformerEventSource<>(
            InformerEventSourceConfiguration.from(Node.class, VolumeReplication.class)
                .withName("replication-nodes")
                .withOnUpdateFilter(ReplicationNodeChanges::matter)
                .withSecondaryToPrimaryMapper(
                    node ->
                        context
                            .getPrimaryCache()
                            .list(r -> onNode(r, node.getMetadata().getName()))
                            .map(ResourceID::fromResource)
                            .collect(Collectors.toSet()))
                .build(),
            context);
    return List.of(services.calls().wakeUps(), moves, nodes);
  }

  private static boolean onNode(VolumeReplication replication, String node) {
    VolumeReplicationStatus status = replication.getStatus();
    return status != null
        && Stream.of(
                status.getPrimaryNode(),
                status.getStandbyNode(),
                status.getStaleCopy() == null ? null : status.getStaleCopy().getNode())
            .anyMatch(n -> Objects.equals(n, node));
  }

  @Override
  public UpdateControl<VolumeReplication> reconcile(
      VolumeReplication resource, Context<VolumeReplication> context) {
    Duration wait = run(resource, context, false);
    return UpdateControl.<VolumeReplication>noUpdate().rescheduleAfter(wait);
  }

  @Override
  public DeleteControl cleanup(VolumeReplication resource, Context<VolumeReplication> context) {
    Duration wait = run(resource, context, true);
    return wait == null
        ? DeleteControl.defaultDelete()
        : DeleteControl.noFinalizerRemoval().rescheduleAfter(wait);
  }

  private Duration run(
      VolumeReplication resource, Context<VolumeReplication> context, boolean leaving) {
    MDC.put(
        "volumereplication",
        resource.getMetadata().getNamespace() + "/" + resource.getMetadata().getName());
    try {
      Replication replication =
          new Replication(
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
      return leaving
          ? ReplicationTeardown.run(replication)
          : ReplicationDriver.advance(replication);
    } finally {
      MDC.remove("volumereplication");
    }
  }
}
