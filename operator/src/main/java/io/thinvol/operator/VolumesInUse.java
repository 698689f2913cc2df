package io.thinvol.operator;

import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.operator.model.StorageClassModel;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The claims and volumes that use each backend, from watched caches: a backend whose deletion waits
 * for them is reconciled when one goes, and looking them up costs no request.
 */
final class VolumesInUse {

  private static final String SUFFIX = "." + StorageBackend.GROUP;

  private volatile InformerEventSource<PersistentVolumeClaim, StorageBackend> claims;
  private volatile InformerEventSource<PersistentVolume, StorageBackend> volumes;

  List<EventSource<?, StorageBackend>> eventSources(EventSourceContext<StorageBackend> context) {
    claims =
        new InformerEventSource<>(
            InformerEventSourceConfiguration.from(PersistentVolumeClaim.class, StorageBackend.class)
                .withSecondaryToPrimaryMapper(
                    claim ->
                        context
                            .getPrimaryCache()
                            .list(backend -> classes(backend).contains(className(claim)))
                            .map(ResourceID::fromResource)
                            .collect(Collectors.toSet()))
                .build(),
            context);
    volumes =
        new InformerEventSource<>(
            InformerEventSourceConfiguration.from(PersistentVolume.class, StorageBackend.class)
                .withSecondaryToPrimaryMapper(
                    volume -> {
                      String driver = driver(volume);
                      return driver != null && driver.endsWith(SUFFIX)
                          ? Set.of(
                              new ResourceID(
                                  driver.substring(0, driver.length() - SUFFIX.length())))
                          : Set.of();
                    })
                .build(),
            context);
    return List.of(claims, volumes);
  }

  /** The backend's volumes (PersistentVolumes of its driver). */
  Stream<PersistentVolume> volumesOf(StorageBackend backend) {
    InformerEventSource<PersistentVolume, StorageBackend> source = volumes;
    return source == null
        ? Stream.empty()
        : source.list(volume -> backend.driverName().equals(driver(volume)));
  }

  /** The claims and volumes that still use the backend, named the way a person finds them. */
  List<String> of(StorageBackend backend) {
    InformerEventSource<PersistentVolumeClaim, StorageBackend> source = claims;
    return named(
        backend, source == null ? Stream.empty() : source.list(claim -> true), volumesOf(backend));
  }

  /**
   * {@link #of} read from the API server, not the caches: asked once before a backend's objects are
   * removed for good, since a claim created just before the deletion may not be in the cache yet.
   */
  List<String> confirmedOf(StorageBackend backend, KubernetesClient client) {
    return named(
        backend,
        client.persistentVolumeClaims().inAnyNamespace().list().getItems().stream(),
        confirmedVolumesOf(backend, client));
  }

  /** {@link #volumesOf} read from the API server, not the cache. */
  Stream<PersistentVolume> confirmedVolumesOf(StorageBackend backend, KubernetesClient client) {
    return client.persistentVolumes().list().getItems().stream()
        .filter(volume -> backend.driverName().equals(driver(volume)));
  }

  private static List<String> named(
      StorageBackend backend,
      Stream<PersistentVolumeClaim> anyClaims,
      Stream<PersistentVolume> itsVolumes) {
    Set<String> classes = classes(backend);
    List<String> users = new ArrayList<>();
    anyClaims
        .filter(claim -> classes.contains(className(claim)))
        .map(c -> "PVC " + c.getMetadata().getNamespace() + "/" + c.getMetadata().getName())
        .sorted()
        .forEach(users::add);
    itsVolumes.map(v -> "PV " + v.getMetadata().getName()).sorted().forEach(users::add);
    return users;
  }

  private static Set<String> classes(StorageBackend backend) {
    return StorageClassModel.desired(backend).stream()
        .map(c -> c.getMetadata().getName())
        .collect(Collectors.toSet());
  }

  private static String className(PersistentVolumeClaim claim) {
    return claim.getSpec() == null ? null : claim.getSpec().getStorageClassName();
  }

  private static String driver(PersistentVolume volume) {
    return volume.getSpec() == null || volume.getSpec().getCsi() == null
        ? null
        : volume.getSpec().getCsi().getDriver();
  }
}
