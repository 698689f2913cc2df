package io.thinvol.operator;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import io.thinvol.operator.model.SnapshotContentNode;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The PersistentVolumes that snapshot contents copy, for the labellers: an informer of every PV
 * indexed by its CSI volume handle, whose events reach the contents that copy that volume, so a
 * content whose volume shows up late is labelled then.
 */
final class SourceVolumes {

  private static final String BY_VOLUME_HANDLE = "volume-handle";

  private final InformerEventSource<PersistentVolume, ?> informer;

  private SourceVolumes(InformerEventSource<PersistentVolume, ?> informer) {
    this.informer = informer;
  }

  /**
   * @param handles the volume handles a content copies
   */
  static <P extends HasMetadata> Registered<P> register(
      EventSourceContext<P> context,
      Class<P> contents,
      String name,
      Function<P, List<String>> handles) {
    context.getPrimaryCache().addIndexer(BY_VOLUME_HANDLE, handles);
    InformerEventSource<PersistentVolume, P> informer =
        new InformerEventSource<>(
            InformerEventSourceConfiguration.from(PersistentVolume.class, contents)
                .withName(name)
                .withSecondaryToPrimaryMapper(
                    volume ->
                        SnapshotContentNode.volumeHandle(volume).stream()
                            .flatMap(
                                handle ->
                                    context
                                        .getPrimaryCache()
                                        .byIndex(BY_VOLUME_HANDLE, handle)
                                        .stream())
                            .map(ResourceID::fromResource)
                            .collect(Collectors.toSet()))
                .build(),
            context);
    informer.addIndexer(
        BY_VOLUME_HANDLE, volume -> SnapshotContentNode.volumeHandle(volume).stream().toList());
    return new Registered<>(new SourceVolumes(informer), informer);
  }

  /** The volumes and the event source to hand to JOSDK. */
  record Registered<P extends HasMetadata>(
      SourceVolumes volumes, InformerEventSource<PersistentVolume, P> eventSource) {}

  /** The PersistentVolumes whose {@code spec.csi.volumeHandle} is {@code handle}. */
  List<PersistentVolume> withHandle(String handle) {
    return informer.byIndex(BY_VOLUME_HANDLE, handle);
  }
}
