package io.thinvol.addons.schedule;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.storage.StorageClass;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import io.thinvol.api.BackendNames;
import io.thinvol.api.v1alpha1.StorageBackend;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * What a claim's schedule depends on besides the claim: its Namespace, StorageClass and
 * StorageBackend, watched so that a change of one re-reconciles the claims it touches at once.
 */
final class ScheduleInputs {

  private static final String BY_CLASS = "storage-class";

  private InformerEventSource<Namespace, PersistentVolumeClaim> namespaces;
  private InformerEventSource<StorageClass, PersistentVolumeClaim> storageClasses;
  private InformerEventSource<StorageBackend, PersistentVolumeClaim> backends;

  List<EventSource<?, PersistentVolumeClaim>> eventSources(
      EventSourceContext<PersistentVolumeClaim> context) {
    namespaces =
        new InformerEventSource<>(
            InformerEventSourceConfiguration.from(Namespace.class, PersistentVolumeClaim.class)
                .withSecondaryToPrimaryMapper(ns -> claimsIn(context, ns.getMetadata().getName()))
                .build(),
            context);
    context.getPrimaryCache().addIndexer(BY_CLASS, ScheduleInputs::storageClassOf);
    storageClasses =
        new InformerEventSource<>(
            InformerEventSourceConfiguration.from(StorageClass.class, PersistentVolumeClaim.class)
                .withSecondaryToPrimaryMapper(sc -> claimsOfClasses(context, Stream.of(sc)))
                .build(),
            context);
    // Only what the schedules read: a backend's spec, not the status its reconciler keeps writing.
    backends =
        new InformerEventSource<>(
            InformerEventSourceConfiguration.from(StorageBackend.class, PersistentVolumeClaim.class)
                .withOnUpdateFilter(
                    (newer, older) ->
                        !Objects.equals(
                            newer.getMetadata().getGeneration(),
                            older.getMetadata().getGeneration()))
                .withSecondaryToPrimaryMapper(
                    b ->
                        claimsOfClasses(
                            context,
                            storageClasses.list(
                                sc ->
                                    BackendNames.backendOfDriver(sc.getProvisioner())
                                        .filter(b.getMetadata().getName()::equals)
                                        .isPresent())))
                .build(),
            context);
    return List.of(namespaces, storageClasses, backends);
  }

  /** The StorageBackend of a bound PVC of one of its StorageClasses. */
  Optional<StorageBackend> backendOf(PersistentVolumeClaim claim) {
    if (claim.getMetadata().getDeletionTimestamp() != null
        || claim.getStatus() == null
        || !"Bound".equals(claim.getStatus().getPhase())
        || claim.getSpec().getStorageClassName() == null) {
      return Optional.empty();
    }
    return storageClasses
        .get(new ResourceID(claim.getSpec().getStorageClassName()))
        .flatMap(sc -> BackendNames.backendOfDriver(sc.getProvisioner()))
        .flatMap(name -> backends.get(new ResourceID(name)));
  }

  Map<String, String> namespaceAnnotations(PersistentVolumeClaim claim) {
    return annotations(namespaces, claim.getMetadata().getNamespace());
  }

  Map<String, String> storageClassAnnotations(PersistentVolumeClaim claim) {
    return annotations(storageClasses, claim.getSpec().getStorageClassName());
  }

  private static Map<String, String> annotations(
      InformerEventSource<? extends HasMetadata, ?> source, String name) {
    return name == null
        ? Map.of()
        : source
            .get(new ResourceID(name))
            .map(o -> o.getMetadata().getAnnotations())
            .orElse(Map.of());
  }

  private static Set<ResourceID> claimsIn(
      EventSourceContext<PersistentVolumeClaim> context, String namespace) {
    return context
        .getPrimaryCache()
        .list(namespace)
        .map(ResourceID::fromResource)
        .collect(Collectors.toSet());
  }

  /** The PVCs of some StorageClasses, from an index of the PVC cache by class. */
  private static Set<ResourceID> claimsOfClasses(
      EventSourceContext<PersistentVolumeClaim> context, Stream<StorageClass> classes) {
    return classes
        .flatMap(
            sc -> context.getPrimaryCache().byIndex(BY_CLASS, sc.getMetadata().getName()).stream())
        .map(ResourceID::fromResource)
        .collect(Collectors.toSet());
  }

  private static List<String> storageClassOf(PersistentVolumeClaim claim) {
    return claim.getSpec() == null || claim.getSpec().getStorageClassName() == null
        ? List.of()
        : List.of(claim.getSpec().getStorageClassName());
  }
}
