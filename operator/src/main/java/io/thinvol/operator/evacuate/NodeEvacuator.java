package io.thinvol.operator.evacuate;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.thinvol.api.v1alpha1.VolumeMove;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * Node evacuation: for a node annotated {@code thinvol.io/evacuate=true}, a VolumeMove for every
 * thinvol volume on it that is bound to a claim, also for volumes made there later; the annotation
 * removed (or {@code false}), the moves that have not begun to cut over are deleted. The moves do
 * the rest (pre-copy now, cut-over once a drain has evicted the claim's pods), at most the
 * StorageBackend's {@code spec.moves.maxConcurrentPerNode} copies at once. Never writes the Node;
 * Events on it say how the evacuation goes. Runs in the leader only, as every controller of the
 * operator.
 */
@ControllerConfiguration(
    name = "node-evacuation",
    generationAwareEventProcessing = false,
    informer = @Informer(onUpdateFilter = EvacuateAnnotationChanged.class))
public class NodeEvacuator implements Reconciler<Node> {

  private static final Logger log = LoggerFactory.getLogger(NodeEvacuator.class);

  /** After a refused delete (the move changed since read), the cache has caught up by then. */
  static final Duration CONFLICT = Duration.ofSeconds(1);

  private final EvacuationAnnouncements announce;
  private volatile EvacuationSources sources;

  public NodeEvacuator(KubernetesClient client, Clock clock) {
    this.announce = new EvacuationAnnouncements(new NodeEvents(client, clock));
  }

  @Override
  public List<EventSource<?, Node>> prepareEventSources(EventSourceContext<Node> context) {
    sources = EvacuationSources.register(context);
    return sources.eventSources();
  }

  @Override
  public UpdateControl<Node> reconcile(Node node, Context<Node> context) {
    MDC.put("node", node.getMetadata().getName());
    try {
      EvacuateRequest request = EvacuateRequest.of(node);
      switch (request.kind()) {
        case EVACUATE:
          evacuate(node, context.getClient());
          return UpdateControl.noUpdate();
        case STOP:
          return stop(node, context.getClient());
        default:
          log.warn("{}", request.notUnderstood());
          announce.notUnderstood(node, request);
          return UpdateControl.noUpdate();
      }
    } finally {
      MDC.remove("node");
    }
  }

  private void evacuate(Node node, KubernetesClient client) {
    String name = node.getMetadata().getName();
    EvacuationPlan plan =
        EvacuationPlan.of(
            name,
            sources.volumesOn(name),
            sources.movesOf(name),
            sources::move,
            claim -> sources.otherMoveOf(claim, name));
    List<String> made =
        plan.create().stream().map(move -> create(client, move)).filter(Objects::nonNull).toList();
    if (!made.isEmpty()) {
      announce.evacuating(node, made, plan.toMove());
    }
    plan.movedByOthers().forEach(move -> announce.leftToOtherMove(node, move));
    plan.nameTaken().forEach(move -> announce.nameTaken(node, move));
    plan.failed().forEach(move -> announce.stalled(node, move));
    if (plan.evacuated()) {
      announce.evacuated(node, plan.ours());
    }
  }

  /** Makes a move; its uid, or null when it existed already (the cache had not seen it yet). */
  private static String create(KubernetesClient client, VolumeMove move) {
    try {
      VolumeMove made = client.resource(move).create();
      log.info(
          "made VolumeMove {}/{} for claim {}",
          move.getMetadata().getNamespace(),
          move.getMetadata().getName(),
          move.getSpec().getPersistentVolumeClaim());
      return made.getMetadata().getUid();
    } catch (KubernetesClientException e) {
      if (e.getCode() == 409) {
        return null;
      }
      throw e;
    }
  }

  private UpdateControl<Node> stop(Node node, KubernetesClient client) {
    List<VolumeMove> ours = sources.movesOf(node.getMetadata().getName());
    List<VolumeMove> withdrawn = new ArrayList<>();
    boolean conflict = false;
    for (VolumeMove move : EvacuationPlan.withdraw(ours)) {
      try {
        // Only as read: a move that began its cut-over since has another resourceVersion.
        client.resource(move).lockResourceVersion().delete();
        withdrawn.add(move);
        log.info(
            "withdrew VolumeMove {}/{} ({})",
            move.getMetadata().getNamespace(),
            move.getMetadata().getName(),
            EvacuationMoves.phase(move).map(Enum::name).orElse("not begun"));
      } catch (KubernetesClientException e) {
        if (e.getCode() == 409) {
          conflict = true;
        } else if (e.getCode() != 404) {
          throw e;
        }
      }
    }
    if (!withdrawn.isEmpty()) {
      long left = ours.stream().filter(m -> m.getMetadata().getDeletionTimestamp() == null).count();
      announce.stopped(node, withdrawn, (int) left - withdrawn.size());
    }
    return conflict
        ? UpdateControl.<Node>noUpdate().rescheduleAfter(CONFLICT)
        : UpdateControl.noUpdate();
  }
}
