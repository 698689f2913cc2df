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
import java.util.List;
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

  private final NodeEvents events;
  private volatile EvacuationSources sources;

  public NodeEvacuator(KubernetesClient client, Clock clock) {
    this.events = new NodeEvents(client, clock);
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
          events.once(
              node, "Warning", "EvacuateNotUnderstood", request.value(), request.notUnderstood());
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
            claim -> sources.movedByOthers(claim, name));
    List<String> created = plan.create().stream().map(move -> create(client, move)).toList();
    List<String> made = created.stream().filter(uid -> uid != null).toList();
    if (!made.isEmpty()) {
      int toMove = plan.toMove();
      events.once(
          node,
          "Normal",
          "Evacuating",
          String.join(",", made),
          toMove
              + (toMove == 1 ? " volume" : " volumes")
              + " to move off "
              + name
              + (made.size() < toMove ? " (" + made.size() + " new)" : "")
              + "; kubectl get volmove -A -l "
              + VolumeMove.EVACUATED_NODE
              + "="
              + EvacuationMoves.labelValue(name));
    }
    plan.nameTaken()
        .forEach(
            move ->
                events.once(
                    node,
                    "Warning",
                    "EvacuationNameTaken",
                    move,
                    "a VolumeMove "
                        + move
                        + " exists that this evacuation did not make; its volume is not moved"
                        + " off "
                        + name
                        + " until it is deleted"));
    for (VolumeMove failed : plan.failed()) {
      String moveName = failed.getMetadata().getNamespace() + "/" + failed.getMetadata().getName();
      events.once(
          node,
          "Warning",
          "EvacuationStalled",
          failed.getMetadata().getUid(),
          "VolumeMove "
              + moveName
              + " of claim "
              + failed.getSpec().getPersistentVolumeClaim()
              + " failed: "
              + java.util.Objects.requireNonNullElse(failed.getStatus().getMessage(), "no message")
              + "; the claim is still on "
              + name
              + ". Delete the move to try again (the evacuation makes a new one)");
    }
    if (plan.evacuated()) {
      int moved = plan.ours().size();
      events.once(
          node,
          "Normal",
          "Evacuated",
          String.join(
              ",", plan.ours().stream().map(m -> m.getMetadata().getUid()).sorted().toList()),
          moved == 0
              ? "no thinvol volume on " + name + "; nothing to move"
              : "all " + moved + (moved == 1 ? " volume" : " volumes") + " moved off " + name);
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
    String name = node.getMetadata().getName();
    List<VolumeMove> ours = sources.movesOf(name);
    List<VolumeMove> withdraw = EvacuationPlan.withdraw(ours);
    if (withdraw.isEmpty()) {
      return UpdateControl.noUpdate();
    }
    int withdrawn = 0;
    boolean conflict = false;
    for (VolumeMove move : withdraw) {
      try {
        // Only as read: a move that began its cut-over since has another resourceVersion.
        client.resource(move).lockResourceVersion().delete();
        withdrawn++;
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
    if (withdrawn > 0) {
      int kept = ours.size() - withdrawn;
      events.once(
          node,
          "Normal",
          "EvacuationStopped",
          String.join(",", withdraw.stream().map(m -> m.getMetadata().getUid()).sorted().toList()),
          "evacuation of "
              + name
              + " stopped: "
              + withdrawn
              + (withdrawn == 1 ? " VolumeMove" : " VolumeMoves")
              + " not yet cutting over deleted"
              + (kept == 0 ? "" : "; " + kept + " kept (cutting over or ended)"));
    }
    return conflict
        ? UpdateControl.<Node>noUpdate().rescheduleAfter(CONFLICT)
        : UpdateControl.noUpdate();
  }
}
