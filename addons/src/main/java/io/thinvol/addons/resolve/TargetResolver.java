package io.thinvol.addons.resolve;

import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.thinvol.api.BackendNames;
import io.thinvol.api.kube.VolumeNodes;
import io.thinvol.api.v1alpha1.ReclaimSpaceSpec;
import io.thinvol.api.v1alpha1.StorageBackend;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Follows a PVC to the driver pod that holds its volume: PVC → bound PV → thinvol driver → the node
 * in the PV's node affinity → that node's driver pod. Every dead end says what a person can check.
 */
public final class TargetResolver {

  /** What a StorageBackend without {@code reclaimSpace.timeout} gets (its CRD default). */
  static final Duration DEFAULT_TIMEOUT = Duration.ofMinutes(10);

  private final ResolverCaches caches;

  public TargetResolver(ResolverCaches caches) {
    this.caches = caches;
  }

  /**
   * @param timeoutSeconds the job's own per-call timeout, or null for the backend's
   */
  public VolumeLocation resolve(String namespace, String claimName, Long timeoutSeconds)
      throws ReclaimProblem {
    PersistentVolumeClaim claim = caches.claim(namespace, claimName).orElse(null);
    if (claim == null) {
      throw ReclaimProblem.lasting(
          "PvcNotFound", "PersistentVolumeClaim %s/%s does not exist", namespace, claimName);
    }
    String pvName = claim.getSpec() == null ? null : claim.getSpec().getVolumeName();
    String phase = claim.getStatus() == null ? null : claim.getStatus().getPhase();
    if (phase == null || "Pending".equals(phase)) {
      // Created in the same apply as the job, or WaitForFirstConsumer: it binds when a pod uses it.
      throw ReclaimProblem.passing(
          "WaitingForClaim",
          "waiting for PersistentVolumeClaim %s/%s to be bound (%s)",
          namespace,
          claimName,
          phase == null ? "no phase yet" : phase);
    }
    if (!"Bound".equals(phase) || pvName == null || pvName.isEmpty()) {
      throw ReclaimProblem.lasting(
          "PvcNotBound",
          "PersistentVolumeClaim %s/%s is %s, not bound to a volume, so there is nothing to reclaim",
          namespace,
          claimName,
          phase);
    }
    PersistentVolume volume = caches.volume(pvName).orElse(null);
    if (volume == null) {
      throw ReclaimProblem.lasting(
          "PvNotFound",
          "PersistentVolumeClaim %s/%s is bound to PersistentVolume %s, which does not exist",
          namespace,
          claimName,
          pvName);
    }
    if (volume.getSpec().getCsi() == null) {
      throw ReclaimProblem.lasting(
          "NotThinvol",
          "PersistentVolume %s is not a CSI volume; only thinvol volumes can be reclaimed",
          pvName);
    }
    String driverName = volume.getSpec().getCsi().getDriver();
    String backendName =
        BackendNames.backendOfDriver(driverName)
            .orElseThrow(
                () ->
                    ReclaimProblem.lasting(
                        "NotThinvol",
                        "PersistentVolume %s belongs to CSI driver %s; thinvol reclaims only"
                            + " volumes of its own drivers (<backend>.thinvol.io)",
                        pvName,
                        driverName));
    StorageBackend backend = caches.backend(backendName).orElse(null);
    if (backend == null) {
      throw ReclaimProblem.lasting(
          "BackendNotFound",
          "PersistentVolume %s belongs to driver %s, but StorageBackend %s does not exist",
          pvName,
          driverName,
          backendName);
    }
    String nodeName =
        nodeOf(volume)
            .orElseThrow(
                () ->
                    ReclaimProblem.lasting(
                        "NoNode",
                        "PersistentVolume %s has no node affinity on %s, so the node holding it"
                            + " is unknown",
                        pvName,
                        BackendNames.TOPOLOGY_KEY));
    ReclaimSpaceSpec settings =
        Optional.ofNullable(backend.getSpec())
            .map(s -> s.getReclaimSpace())
            .orElseGet(ReclaimSpaceSpec::new);
    return new VolumeLocation(
        pvName,
        volume.getSpec().getCsi().getVolumeHandle(),
        driverName,
        backendName,
        nodeName,
        endpoint(backendName, nodeName),
        timeoutSeconds != null ? Duration.ofSeconds(timeoutSeconds) : timeout(settings),
        Optional.ofNullable(settings.getMaxConcurrentPerNode()).orElse(1));
  }

  private DriverEndpoint endpoint(String backendName, String nodeName) throws ReclaimProblem {
    List<Pod> pods =
        caches.driverPods(backendName, nodeName).stream()
            .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
            .toList();
    if (pods.isEmpty()) {
      throw ReclaimProblem.passing(
          "DriverPodMissing",
          "no driver pod of StorageBackend %s runs on node %s (namespace %s); is the node up and"
              + " selected by the backend?",
          backendName,
          nodeName,
          caches.operatorNamespace());
    }
    Pod pod = pods.stream().filter(DriverEndpoint::ready).findFirst().orElse(null);
    if (pod == null || pod.getStatus().getPodIP() == null) {
      throw ReclaimProblem.passing(
          "DriverPodNotReady",
          "driver pod %s on node %s is not ready",
          pods.get(0).getMetadata().getName(),
          nodeName);
    }
    return DriverEndpoint.of(backendName, pod, caches.addonsCertificate().orElse(null));
  }

  static Optional<String> nodeOf(PersistentVolume volume) {
    return VolumeNodes.of(volume).stream().findFirst();
  }

  /** The backend's {@code reclaimSpace.timeout}: digits and one unit of s, m or h. */
  static Duration timeout(ReclaimSpaceSpec settings) {
    String text = settings.getTimeout();
    if (text == null || !text.matches("[0-9]+[smh]")) {
      return DEFAULT_TIMEOUT;
    }
    long amount = Long.parseLong(text.substring(0, text.length() - 1));
    return switch (text.charAt(text.length() - 1)) {
      case 's' -> Duration.ofSeconds(amount);
      case 'm' -> Duration.ofMinutes(amount);
      default -> Duration.ofHours(amount);
    };
  }
}
