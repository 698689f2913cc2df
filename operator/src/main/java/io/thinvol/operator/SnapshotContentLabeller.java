package io.thinvol.operator;

import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.thinvol.api.kube.Events;
import io.thinvol.operator.model.SnapshotContentNode;
import io.thinvol.operator.model.SnapshotContentNode.Outcome;
import io.thinvol.operator.model.VolumeSnapshotContent;
import java.time.Duration;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * Labels thinvol's VolumeSnapshotContents with the node whose csi-snapshotter must serve them,
 * where the snapshot controller did not ({@link SnapshotContentNode}). Watches only unlabelled
 * contents, and the PersistentVolumes they copy: a content whose volume is not known yet is
 * labelled when the volume shows up. Registered only where the cluster serves the snapshot API.
 */
@ControllerConfiguration(
    name = "snapshot-content-node",
    informer = @Informer(labelSelector = "!" + SnapshotContentNode.MANAGED_BY))
public class SnapshotContentLabeller implements Reconciler<VolumeSnapshotContent> {

  private static final Logger log = LoggerFactory.getLogger(SnapshotContentLabeller.class);

  /** Besides the volume's own events: a content whose volume was deleted is retried this often. */
  static final Duration WAITING = Duration.ofMinutes(1);

  /** After a refused patch (the content changed since read), the cache has caught up by then. */
  static final Duration CONFLICT = Duration.ofSeconds(1);

  private final Events events;
  private volatile SourceVolumes volumes;

  SnapshotContentLabeller(Events events) {
    this.events = events;
  }

  @Override
  public List<EventSource<?, VolumeSnapshotContent>> prepareEventSources(
      EventSourceContext<VolumeSnapshotContent> context) {
    SourceVolumes.Registered<VolumeSnapshotContent> registered =
        SourceVolumes.register(
            context,
            VolumeSnapshotContent.class,
            "snapshot-source-volumes",
            content -> SnapshotContentNode.volumeHandle(content).stream().toList());
    volumes = registered.volumes();
    return List.of(registered.eventSource());
  }

  @Override
  public UpdateControl<VolumeSnapshotContent> reconcile(
      VolumeSnapshotContent content, Context<VolumeSnapshotContent> context) {
    String name = content.getMetadata().getName();
    MDC.put("volumesnapshotcontent", name);
    try {
      List<PersistentVolume> sources =
          SnapshotContentNode.volumeHandle(content).map(volumes::withHandle).orElse(List.of());
      Outcome outcome = SnapshotContentNode.decide(content, sources);
      switch (outcome.action()) {
        case LABEL:
          return label(content, outcome.node(), context);
        case WAIT:
          events.recurringWarning(content, outcome.reason(), outcome.message());
          return UpdateControl.<VolumeSnapshotContent>noUpdate().rescheduleAfter(WAITING);
        case ASK_ADMIN:
          log.warn("{}: {}", outcome.reason(), outcome.message());
          events.recurringWarning(content, outcome.reason(), outcome.message());
          return UpdateControl.noUpdate();
        default:
          return UpdateControl.noUpdate();
      }
    } finally {
      MDC.remove("volumesnapshotcontent");
    }
  }

  private static UpdateControl<VolumeSnapshotContent> label(
      VolumeSnapshotContent content, String node, Context<VolumeSnapshotContent> context) {
    if (!NodeLabel.set(context.getClient(), content, node)) {
      log.debug("content changed while labelling it; reading it again");
      return UpdateControl.<VolumeSnapshotContent>noUpdate().rescheduleAfter(CONFLICT);
    }
    log.info(
        "labelled {}={} for that node's csi-snapshotter", SnapshotContentNode.MANAGED_BY, node);
    return UpdateControl.noUpdate();
  }
}
