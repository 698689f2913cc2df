package io.thinvol.operator;

import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import io.thinvol.api.BackendNames;
import io.thinvol.api.kube.Events;
import io.thinvol.operator.model.GroupSnapshotContentNode;
import io.thinvol.operator.model.SnapshotContentNode;
import io.thinvol.operator.model.SnapshotContentNode.Outcome;
import io.thinvol.operator.model.VolumeGroupSnapshotClass;
import io.thinvol.operator.model.VolumeGroupSnapshotContent;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * Makes thinvol's group snapshots visible to the node that must make them ({@link
 * GroupSnapshotContentNode}): labels each VolumeGroupSnapshotContent with the node of its volumes,
 * and its VolumeGroupSnapshotClass with the node of the oldest group still to be made. Watches the
 * group contents, the PersistentVolumes they copy and the group snapshot classes. Registered only
 * where the cluster serves the group snapshot API.
 */
// Every change matters, not only the spec's: the label and the status decide the class's node.
@ControllerConfiguration(
    name = "group-snapshot-content-node",
    generationAwareEventProcessing = false)
public class GroupSnapshotContentLabeller implements Reconciler<VolumeGroupSnapshotContent> {

  private static final Logger log = LoggerFactory.getLogger(GroupSnapshotContentLabeller.class);
  private static final String BY_CLASS = "class";

  /** While a group waits to be made its class is looked at this often (another may finish). */
  static final Duration PENDING = Duration.ofSeconds(30);

  private final Events events;
  private volatile SourceVolumes volumes;
  private volatile InformerEventSource<VolumeGroupSnapshotClass, VolumeGroupSnapshotContent>
      classes;

  GroupSnapshotContentLabeller(Events events) {
    this.events = events;
  }

  @Override
  public List<EventSource<?, VolumeGroupSnapshotContent>> prepareEventSources(
      EventSourceContext<VolumeGroupSnapshotContent> context) {
    SourceVolumes.Registered<VolumeGroupSnapshotContent> registered =
        SourceVolumes.register(
            context,
            VolumeGroupSnapshotContent.class,
            "group-snapshot-source-volumes",
            GroupSnapshotContentNode::volumeHandles);
    volumes = registered.volumes();
    context
        .getPrimaryCache()
        .addIndexer(
            BY_CLASS,
            content ->
                Optional.ofNullable(content.getSpec())
                    .map(VolumeGroupSnapshotContent.Spec::getVolumeGroupSnapshotClassName)
                    .stream()
                    .toList());
    // A class made (or relabelled by someone else) after its groups: look at them again.
    classes =
        new InformerEventSource<>(
            InformerEventSourceConfiguration.from(
                    VolumeGroupSnapshotClass.class, VolumeGroupSnapshotContent.class)
                .withName("group-snapshot-classes")
                .withSecondaryToPrimaryMapper(
                    groupClass ->
                        context
                            .getPrimaryCache()
                            .byIndex(BY_CLASS, groupClass.getMetadata().getName())
                            .stream()
                            .map(ResourceID::fromResource)
                            .collect(Collectors.toSet()))
                .build(),
            context);
    return List.of(registered.eventSource(), classes);
  }

  @Override
  public UpdateControl<VolumeGroupSnapshotContent> reconcile(
      VolumeGroupSnapshotContent content, Context<VolumeGroupSnapshotContent> context) {
    if (!GroupSnapshotContentNode.thinvols(content)) {
      return UpdateControl.noUpdate();
    }
    MDC.put("volumegroupsnapshotcontent", content.getMetadata().getName());
    try {
      Outcome outcome = GroupSnapshotContentNode.decide(content, volumes::withHandle);
      if (outcome.reason() != null) {
        log.warn("{}: {}", outcome.reason(), outcome.message());
        events.recurringWarning(content, outcome.reason(), outcome.message());
      }
      switch (outcome.action()) {
        case LABEL:
          return label(content, outcome.node(), context);
        case WAIT:
          return UpdateControl.<VolumeGroupSnapshotContent>noUpdate()
              .rescheduleAfter(SnapshotContentLabeller.WAITING);
        default:
          return labelClass(content, context);
      }
    } finally {
      MDC.remove("volumegroupsnapshotcontent");
    }
  }

  /** Labels the content; its update event brings it back here for its class. */
  private static UpdateControl<VolumeGroupSnapshotContent> label(
      VolumeGroupSnapshotContent content,
      String node,
      Context<VolumeGroupSnapshotContent> context) {
    if (!NodeLabel.set(context.getClient(), content, node)) {
      return UpdateControl.<VolumeGroupSnapshotContent>noUpdate()
          .rescheduleAfter(SnapshotContentLabeller.CONFLICT);
    }
    log.info(
        "labelled {}={} for that node's csi-snapshotter", SnapshotContentNode.MANAGED_BY, node);
    return UpdateControl.noUpdate();
  }

  /**
   * Gives the content's class the label of the node whose group is to be made next, and looks again
   * while this content waits to be made.
   */
  private UpdateControl<VolumeGroupSnapshotContent> labelClass(
      VolumeGroupSnapshotContent content, Context<VolumeGroupSnapshotContent> context) {
    String className = content.getSpec().getVolumeGroupSnapshotClassName();
    if (className == null) {
      return UpdateControl.noUpdate();
    }
    List<VolumeGroupSnapshotContent> ofClass =
        context.getPrimaryCache().byIndex(BY_CLASS, className);
    Optional<String> node = GroupSnapshotContentNode.classNode(ofClass);
    if (node.isPresent()) {
      VolumeGroupSnapshotClass groupClass = classes.get(new ResourceID(className)).orElse(null);
      if (groupClass != null
          && BackendNames.backendOfDriver(groupClass.getDriver()).isPresent()
          && !node.get().equals(label(groupClass))) {
        if (!NodeLabel.set(context.getClient(), groupClass, node.get())) {
          return UpdateControl.<VolumeGroupSnapshotContent>noUpdate()
              .rescheduleAfter(SnapshotContentLabeller.CONFLICT);
        }
        log.info(
            "labelled VolumeGroupSnapshotClass {} {}={}: that node's group is made next",
            className,
            SnapshotContentNode.MANAGED_BY,
            node.get());
      }
    }
    boolean waiting =
        content.getMetadata().getDeletionTimestamp() == null
            && (content.getStatus() == null
                || content.getStatus().getVolumeGroupSnapshotHandle() == null);
    return waiting
        ? UpdateControl.<VolumeGroupSnapshotContent>noUpdate().rescheduleAfter(PENDING)
        : UpdateControl.noUpdate();
  }

  private static String label(VolumeGroupSnapshotClass groupClass) {
    return groupClass.getMetadata().getLabels() == null
        ? null
        : groupClass.getMetadata().getLabels().get(SnapshotContentNode.MANAGED_BY);
  }
}
