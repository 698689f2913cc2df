package io.thinvol.addons.resolve;

import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.api.config.informer.FieldSelector;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import io.thinvol.api.BackendNames;
import io.thinvol.api.v1alpha1.ReclaimSpaceJob;
import io.thinvol.api.v1alpha1.StorageBackend;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.function.Supplier;

/**
 * What a job's target is resolved through, from informers of the ReclaimSpaceJob controller instead
 * of a GET or LIST per attempt: PVCs, PVs, StorageBackends, the driver pods of the operator's
 * namespace indexed by backend and node, and the addons TLS Secret (the certificate a call pins, so
 * that a call reads no Secret). A change to a PVC, or to the PV bound to it, wakes the jobs of that
 * PVC (a job waiting for its claim to bind goes on at once). An object missing from a cache is
 * looked up live once before a job fails for it: one created in the same apply as the job may not
 * have reached the informer yet.
 */
public final class ResolverCaches {

  private static final String BY_NODE = "backend-node";

  private final String operatorNamespace;
  private InformerEventSource<PersistentVolumeClaim, ReclaimSpaceJob> claims;
  private InformerEventSource<PersistentVolume, ReclaimSpaceJob> volumes;
  private InformerEventSource<StorageBackend, ReclaimSpaceJob> backends;
  private InformerEventSource<Pod, ReclaimSpaceJob> driverPods;
  private InformerEventSource<Secret, ReclaimSpaceJob> tlsSecrets;
  private KubernetesClient client;

  public ResolverCaches(String operatorNamespace) {
    this.operatorNamespace = operatorNamespace;
  }

  /**
   * The informers, registered by the ReclaimSpaceJob controller.
   *
   * @param jobsOfClaim the jobs targeting a PVC, by namespace and name
   */
  public List<EventSource<?, ReclaimSpaceJob>> eventSources(
      EventSourceContext<ReclaimSpaceJob> context,
      BiFunction<String, String, Set<ResourceID>> jobsOfClaim) {
    client = context.getClient();
    claims =
        new InformerEventSource<>(
            InformerEventSourceConfiguration.from(
                    PersistentVolumeClaim.class, ReclaimSpaceJob.class)
                .withName("resolve-claims")
                .withSecondaryToPrimaryMapper(
                    c ->
                        jobsOfClaim.apply(
                            c.getMetadata().getNamespace(), c.getMetadata().getName()))
                .build(),
            context);
    volumes =
        new InformerEventSource<>(
            InformerEventSourceConfiguration.from(PersistentVolume.class, ReclaimSpaceJob.class)
                .withName("resolve-volumes")
                .withSecondaryToPrimaryMapper(
                    pv ->
                        pv.getSpec() == null || pv.getSpec().getClaimRef() == null
                            ? Set.of()
                            : jobsOfClaim.apply(
                                pv.getSpec().getClaimRef().getNamespace(),
                                pv.getSpec().getClaimRef().getName()))
                .build(),
            context);
    backends =
        new InformerEventSource<>(
            InformerEventSourceConfiguration.from(StorageBackend.class, ReclaimSpaceJob.class)
                .withName("resolve-backends")
                .withSecondaryToPrimaryMapper(b -> Set.of())
                .build(),
            context);
    driverPods =
        new InformerEventSource<>(
            InformerEventSourceConfiguration.from(Pod.class, ReclaimSpaceJob.class)
                .withName("resolve-driver-pods")
                .withNamespaces(operatorNamespace)
                .withLabelSelector("app.kubernetes.io/name=" + BackendNames.NODE_POD_NAME)
                .withSecondaryToPrimaryMapper(p -> Set.of())
                .build(),
            context);
    driverPods.addIndexers(Map.of(BY_NODE, ResolverCaches::backendAndNode));
    tlsSecrets =
        new InformerEventSource<>(
            InformerEventSourceConfiguration.from(Secret.class, ReclaimSpaceJob.class)
                .withName("resolve-tls-secret")
                .withNamespaces(operatorNamespace)
                // the operator may read this one Secret only (RBAC names it)
                .withFieldSelector(
                    new FieldSelector(
                        new FieldSelector.Field("metadata.name", BackendNames.ADDONS_TLS_SECRET)))
                .withSecondaryToPrimaryMapper(s -> Set.of())
                .build(),
            context);
    return List.of(claims, volumes, backends, driverPods, tlsSecrets);
  }

  /**
   * A claim; read from the API server when the cache misses it or holds it unbound: a claim bound a
   * moment ago reaches the cache later, and the job would wait a retry for nothing.
   */
  Optional<PersistentVolumeClaim> claim(String namespace, String name) {
    return orLive(
        claims.get(new ResourceID(name, namespace)).filter(ResolverCaches::bound),
        () -> client.persistentVolumeClaims().inNamespace(namespace).withName(name).get());
  }

  Optional<PersistentVolume> volume(String name) {
    return orLive(
        volumes.get(new ResourceID(name)), () -> client.persistentVolumes().withName(name).get());
  }

  Optional<StorageBackend> backend(String name) {
    return orLive(
        backends.get(new ResourceID(name)),
        () -> client.resources(StorageBackend.class).withName(name).get());
  }

  private static boolean bound(PersistentVolumeClaim claim) {
    return claim.getStatus() != null && "Bound".equals(claim.getStatus().getPhase());
  }

  private static <T> Optional<T> orLive(Optional<T> cached, Supplier<T> live) {
    return cached.isPresent() ? cached : Optional.ofNullable(live.get());
  }

  /**
   * The certificate every backend's driver pods present, from the addons TLS Secret; empty when the
   * cache does not hold it (the caller reads the Secret then).
   */
  Optional<String> addonsCertificate() {
    return tlsSecrets
        .get(new ResourceID(BackendNames.ADDONS_TLS_SECRET, operatorNamespace))
        .flatMap(AddonsCertificate::of);
  }

  /**
   * The driver pods of a backend on a node; read from the API server when the cache holds none (a
   * pod started a moment ago may not have reached it, and a job would fail for it).
   */
  List<Pod> driverPods(String backendName, String nodeName) {
    String key = backendName + "/" + nodeName;
    List<Pod> cached = driverPods.byIndex(BY_NODE, key);
    if (!cached.isEmpty()) {
      return cached;
    }
    return client
        .pods()
        .inNamespace(operatorNamespace)
        .withLabel("app.kubernetes.io/name", BackendNames.NODE_POD_NAME)
        .withLabel(BackendNames.BACKEND_LABEL, backendName)
        .list()
        .getItems()
        .stream()
        .filter(pod -> backendAndNode(pod).contains(key))
        .toList();
  }

  String operatorNamespace() {
    return operatorNamespace;
  }

  private static List<String> backendAndNode(Pod pod) {
    String backend =
        Optional.ofNullable(pod.getMetadata().getLabels())
            .map(l -> l.get(BackendNames.BACKEND_LABEL))
            .orElse(null);
    String node = pod.getSpec() == null ? null : pod.getSpec().getNodeName();
    return backend == null || node == null ? List.of() : List.of(backend + "/" + node);
  }
}
